"""``mtstrata meta``: correlations of metrics (and ULC sets) with human judgments."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from mtstrata import progress
from mtstrata.commands import _output
from mtstrata.commands._help import Formatter


def add_data_options(p: argparse.ArgumentParser) -> None:
    """``--data``, ``-m`` and ``--tables``: shared by ``meta`` and ``search``."""
    p.add_argument("--data", nargs="+", required=True, metavar="LPDIR",
                   help="language-pair directories of the dev-corpus format (ref.txt, "
                   "sys/<SYSTEM>.txt, sys_scores.tsv, optional seg_scores.tsv)")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", default=[], metavar="METRIC",
                   help="metric specs, e.g. bleu chrf 'bleu:max_order=2'; 'lexical' expands to "
                   "the lexical candidate variants; ext:DIR/NAME reads scores computed elsewhere "
                   "(COMET, BLEURT...) from mt-metrics-eval files DIR/<lp>/NAME-REF.seg.score "
                   "(and .sys.score; else the mean of the segment scores), higher is better")
    from mtstrata.combine.table import default_tables_dir
    from mtstrata.commands.score import add_annotation_options

    p.add_argument("--tables", default=str(default_tables_dir()), metavar="DIR",
                   help="cache of score tables, one .npz per pair (default: %(default)s); "
                   "metrics already cached are not recomputed")
    # linguistic metrics annotate every output of every pair: --jobs / --executor dask spread
    # each pair's annotation over worker processes or a cluster (README: Scaling)
    add_annotation_options(p, quiet=False)


def expand_metrics(specs: list[str]) -> list[str]:
    """Metric specs with ``lexical`` expanded to the candidate variants."""
    from mtstrata.combine.table import LEXICAL_CANDIDATES

    out: list[str] = []
    for s in specs:
        out.extend(LEXICAL_CANDIDATES if s == "lexical" else [s])
    return list(dict.fromkeys(out))


def is_set_spec(spec: str) -> bool:
    """``ulc:SET.json`` or a bundled set (``ULC``, ``ULC-lex``, ``ULC-emb``): a metric set used
    as a metric."""
    from mtstrata.metrics.ulc import is_set_spec as _is_set_spec

    return _is_set_spec(spec)


def load_tables(args: argparse.Namespace, specs: list[str]) -> list:  # type: ignore[type-arg]
    """Cached score tables of every ``--data`` directory holding ``specs``; external metrics
    (``ext:DIR/NAME``) are read from their score files into each table (never cached)."""
    from mtstrata.combine.data import read_dev_corpus
    from mtstrata.combine.mtme import external_scores, is_external
    from mtstrata.combine.table import cached_table

    def computing(lp: str, todo: list[str]) -> None:
        if not getattr(args, "quiet", False):
            logging.getLogger("mtstrata").info("%s: computing %d metric(s) into %s", lp,
                                               len(todo), args.tables)

    ours = [s for s in specs if not is_external(s)]
    from mtstrata.commands.score import annotation_options

    options = annotation_options(args)
    tables = [cached_table(d, ours, args.tables, options, on_compute=computing)
              for d in progress.track(args.data, "score tables", unit="pair")]
    for d, t in zip(args.data, tables, strict=True):
        if not any(is_external(s) for s in specs):
            break
        n_seg = (int(t.seg_scores[ours[0]].shape[1]) if ours
                 else read_dev_corpus(d).n_segments)
        for spec in specs:
            if is_external(spec):
                sys_scores, seg_scores, path = external_scores(spec, t.lp, t.systems, n_seg)
                t.add(spec, sys_scores, seg_scores, True)
                t.signatures[spec] = f"external|file:{path}"
    return tables


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "meta", formatter_class=Formatter, help="correlate metrics with human judgments",
        description="System-level Pearson/Spearman/Kendall/pairwise accuracy and segment-level "
        "Pearson/Kendall of each metric (and of saved ULC sets) per language pair and averaged; "
        "Pearson with a seeded percentile bootstrap interval.")
    add_data_options(p)
    p.add_argument("--ulc", nargs="+", default=[], metavar="SET.json",
                   help="metric sets written by 'mtstrata search --out'")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the Pearson intervals (0: none)")
    p.add_argument("--seed", type=int, default=12345, help="random seed of the bootstrap")
    p.add_argument("--format", "-f", choices=["text", "json"], default="text",
                   help="text: a table per level; json: strict JSON records (null where a "
                   "correlation is undefined)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mtstrata import metrics
    from mtstrata.combine.report import format_records, table_records, with_average
    from mtstrata.combine.ulc import Combiner, load_set
    from mtstrata.errors import InputError

    progress.configure(quiet=args.quiet)
    specs = expand_metrics(args.metrics)
    # --ulc: a set of any kind (uniform, learned...) combined from the cached member columns
    from mtstrata.commands.score import annotation_options
    from mtstrata.metrics.provenance import plan_for
    from mtstrata.metrics.ulc import check_set

    options = annotation_options(args)
    ulcs: dict[str, Combiner] = {}
    for path in args.ulc:  # the member check of -m ulc:SET, under this run's annotation
        ulcs[f"ULC:{Path(path).stem}"] = combiner = load_set(path)[0]
        check_set(combiner, path, options)
    # -m ulc:SET.json, -m ULC: the set as a metric (members' signatures checked), combined
    # from the members' cached score columns as score computes it from their statistics
    for spec in [s for s in specs if is_set_spec(s)]:
        m = metrics.create(spec)
        m.check_run(plan_for(m.members, options))  # type: ignore[attr-defined]
        ulcs[m.display_name()] = m.combiner  # type: ignore[attr-defined]
    specs = [s for s in specs if not is_set_spec(s)]
    if not specs and not ulcs:
        raise InputError("nothing to evaluate: pass metrics with -m and/or --ulc SET.json.")
    needed = list(dict.fromkeys([*specs, *(m for s in ulcs.values() for m in s.metrics)]))
    records = []
    for table in load_tables(args, needed):
        records += table_records(table, specs, ulcs, n=args.bootstrap, seed=args.seed)
    records = with_average(records)
    if args.format == "json":
        sys.stdout.write(_output.dumps([r.to_dict() for r in records]))
    else:
        sys.stdout.write(format_records(records))
    return 0
