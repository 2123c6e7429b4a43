"""``mtstrata search``: hill-climb a ULC metric set on dev language pairs."""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from mtstrata import progress
from mtstrata._version import __version__
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.commands.meta import (
    expand_metrics,
    load_tables,
    metric_names,
)
from mtstrata.commands.options import add_data_options
from mtstrata.meta.names import dev_names


@COMMANDS.register("search")
def register(sub: argparse._SubParsersAction) -> None:
    from mtstrata.meta.table import OBJECTIVES

    p = sub.add_parser(
        "search", formatter_class=Formatter, help="select a ULC metric set by hill climbing",
        description="Hill climbing over the candidate metrics (-m) on the dev pairs (--data). "
        "Default: forward-backward selection scored on held-out language pairs; "
        "--mode reference: the reference tool's single forward pass from the best metric. "
        "The set, its normalisation and the trace are written to --out.")
    add_data_options(p)
    p.add_argument("--objective", choices=OBJECTIVES, default="sys_pearson",
                   help="what the search maximises (averaged over the pairs): system- or "
                   "segment-level correlation with the human scores, or pairwise accuracy")
    p.add_argument("--mode", choices=["forward-backward", "reference"],
                   default="forward-backward",
                   help="forward-backward: add and remove metrics, scored on held-out pairs; "
                   "reference: one forward pass on all pairs, as the reference tool")
    p.add_argument("--folds", type=int, default=0,
                   help="language-pair folds for held-out scoring (0: leave one pair out; "
                   "else 2..the number of --data pairs)")
    p.add_argument("--learned", action="store_true",
                   help="fit a learned combination instead (ridge regression with non-negative "
                   "weights on the normalised scores, one model per level, penalty chosen by "
                   "leave-one-pair-out; see mtstrata.combine.learned); --objective, --mode "
                   "and --folds do not apply")
    g = p.add_argument_group(
        "nested held-out estimate (--nested; docs/nested-search.md)",
        "The choice among configurations (--configs) is made inside each outer training fold "
        "by leave-one-language-pair-out; the chosen one is refitted on the fold and measured "
        "on the held-out fold against chrF. Prints each fold, the mean of set - chrF, its 95% "
        "interval (outer test data resampled; training data not) and PERM-BOTH against chrF; "
        "the set written is the procedure run on all pairs, the figures in its provenance.")
    g.add_argument("--nested", action="store_true", help="run the nested held-out procedure")
    g.add_argument("--outer", choices=["year", "pair"], default="pair",
                   help="outer folds: the dataset (year) of a --data directory's parent, or "
                   "the language pair (of every dataset)")
    g.add_argument("--configs", nargs="+", default=["all"], metavar="CONFIG",
                   help="configurations compared: chrf, best:OBJ, OBJ:FIT, ridge, or all "
                   "(chrf, and best:OBJ and OBJ:FIT for each OBJ in sys_pearson accuracy "
                   "sys_kendall and FIT in minmax pairsd z)")
    g.add_argument("--segment-statistic", choices=["kendall_itemwise", "none"],
                   default="kendall_itemwise",
                   help="segment statistic measured beside system Pearson (none: system level "
                   "only, for data without segment judgments)")
    g.add_argument("--inner-rule", choices=["best-sys", "seg-floor"],
                   help="best-sys: best inner system Pearson; seg-floor (default with a "
                   "segment statistic): the same among configurations whose inner segment "
                   "statistic is not below chrF's")
    g.add_argument("--resamples", type=int, default=1000, metavar="N",
                   help="bootstrap resamples of the interval and PERM-BOTH permutations")
    g.add_argument("--seed", type=int, default=12345, help="seed of the resampling")
    g.add_argument("--format", "-f", choices=["text", "json"], default="text",
                   help="how the nested figures are printed")
    p.add_argument("--out", required=True, metavar="SET.json",
                   help="where to write the metric set (JSON; read by `meta --ulc`)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mtstrata.combine.search import format_trace, hill_climb
    from mtstrata.commands import _options
    from mtstrata.errors import InputError
    from mtstrata.meta.data import check_segment_judgments

    progress.configure(quiet=args.quiet)
    check_out(args.out)
    if args.nested:
        return run_nested(args)
    _refuse_nested_options(args)
    if args.learned:  # options that would do nothing are refused, not ignored
        unused = [f"--{k} {getattr(args, k)}" for k, default in (
            ("objective", "sys_pearson"), ("mode", "forward-backward"), ("folds", 0))
            if getattr(args, k) != default]
        if unused:
            raise InputError(f"{', '.join(unused)} does not apply to --learned (its penalty "
                             "is chosen by leave-one-pair-out); leave it out.")
    else:
        _options.check_folds(args.folds, len(args.data))
        if args.objective.startswith("seg"):  # before any work: every pair has seg judgments
            check_segment_judgments(args.data, f"--objective {args.objective}")
    if args.learned:  # before any work: the ridge regression is scikit-learn's
        from mtstrata.lock import require_libraries

        require_libraries(("scikit-learn",), "search --learned")
    specs = expand_metrics(args.metrics)
    if not specs:
        raise InputError("no candidate metrics: pass them with -m (e.g. -m lexical).")
    names = metric_names(specs)
    specs = list(names)
    tables = load_tables(args, specs)
    dev = dev_names(args.data)  # dataset/pair, two datasets of one folder name kept apart
    if args.learned:
        from mtstrata.combine.learned import fit_learned, format_weights

        ls = fit_learned(tables, specs, provenance={
            "mtstrata": __version__, "dev": dev, "names": names,
            **member_record(tables, specs)})
        ls.save(args.out)
        sys.stdout.write(format_weights(ls) + "\n" + _signatures(specs, names, tables)
                         + f"written {args.out}\n")
        return 0
    ms = hill_climb(tables, specs, args.objective, mode=args.mode, folds=args.folds)
    ms = dataclasses.replace(ms, provenance={
        "mtstrata": __version__,
        "objective": args.objective,
        "mode": args.mode,
        "folds": args.folds,
        "dev": dev,
        "names": {m: names[m] for m in ms.metrics},
        **member_record(tables, ms.metrics),
    })
    ms.save(args.out)
    sys.stdout.write(format_trace(ms, names) + "\n")
    sys.stdout.write(f"selected {len(ms.metrics)}: {' '.join(names[m] for m in ms.metrics)}\n"
                     + _signatures(ms.metrics, names, tables) + f"written {args.out}\n")
    return 0


_NESTED = (("outer", "pair"), ("configs", ["all"]), ("segment_statistic", "kendall_itemwise"),
           ("inner_rule", None), ("resamples", 1000), ("seed", 12345), ("format", "text"))


def _refuse_nested_options(args: argparse.Namespace) -> None:
    from mtstrata.errors import InputError

    unused = [f"--{k.replace('_', '-')}" for k, default in _NESTED
              if getattr(args, k) != default]
    if unused:
        raise InputError(f"{', '.join(unused)} only applies with --nested; add --nested or "
                         "leave it out.")


def run_nested(args: argparse.Namespace) -> int:
    """``search --nested``: the nested held-out estimate (:mod:`mtstrata.combine.nested`) and
    the set the procedure gives on all pairs, with the figures in its provenance."""
    import json

    from mtstrata.combine.nested import format_nested
    from mtstrata.combine.nested import run_nested as nested
    from mtstrata.combine.procedures import BASELINE, configurations
    from mtstrata.commands import _options
    from mtstrata.errors import InputError

    changed = [f"--{k} {getattr(args, k)}" for k, default in (
        ("objective", "sys_pearson"), ("mode", "forward-backward"), ("folds", 0))
        if getattr(args, k) != default]
    if changed or args.learned:
        raise InputError(f"{', '.join(changed) or '--learned'} does not apply to --nested "
                         "(the configurations compared are --configs: e.g. sys_pearson:minmax, "
                         "best:accuracy, ridge); leave it out.")
    _options.check_resamples(args.resamples, "--resamples", allow_zero=False)
    _options.check_seed(args.seed)
    seg = args.segment_statistic != "none"
    rule = args.inner_rule or ("seg-floor" if seg else "best-sys")
    specs = expand_metrics(args.metrics)
    if not specs:
        raise InputError("no candidate metrics: pass them with -m (e.g. -m lexical).")
    names = metric_names(specs)
    specs = list(names)
    procs = configurations(args.configs, specs)
    if "ridge" in procs:
        from mtstrata.lock import require_libraries

        require_libraries(("scikit-learn",), "search --nested --configs ridge")
    tables = load_tables(args, list(dict.fromkeys([*specs, BASELINE])))
    dev = dev_names(args.data)  # dataset/pair, two datasets of one folder name kept apart
    res, fitted = nested(tables, dev, procs, outer=args.outer, rule=rule, seg=seg,
                         resamples=args.resamples, seed=args.seed)
    res["pool"] = specs
    members = list(fitted.metrics)
    fitted = dataclasses.replace(fitted, provenance={
        "mtstrata": __version__, "procedure": "search --nested", "dev": dev,
        "names": {m: names.get(m, m) for m in members},
        **member_record(tables, members), "nested": res})
    fitted.save(args.out)
    if args.format == "json":
        sys.stdout.write(json.dumps(res, indent=1, allow_nan=False, default=_json) + "\n")
    else:
        sys.stdout.write(format_nested(res, names) + "\n"
                         + _signatures(members, {**names, BASELINE: names.get(BASELINE, "chrF")},
                                       tables) + f"written {args.out}\n")
    return 0


def _json(x: object) -> object:
    raise TypeError(f"not JSON: {type(x).__name__}")


def check_out(path: str) -> None:
    """``--out`` must name a regular file (or nothing yet) in an existing directory: checked
    before any work, and never a symlink, FIFO or device that the write would replace."""
    from mtstrata.errors import InputError

    p = Path(path)
    if p.is_symlink() or (p.exists() and not p.is_file()):
        raise InputError("--out must be a regular file (or a new name); this is a "
                         f"{'symbolic link' if p.is_symlink() else 'directory, FIFO or device'},"
                         " which writing the set would replace. Pass another path.", path)
    if not p.parent.is_dir():
        raise InputError(f"--out: the directory {p.parent} does not exist; create it or pass "
                         "another path.", path)
    from mtstrata.output import check_output_path

    check_output_path(p)  # claimed: an input read later (sys_scores.tsv...) is refused then


def set_signatures(table: object, specs: Sequence[str]) -> dict[str, str]:
    """What a set records of each member: the full signature its table column was computed
    under (annotator and labeller included), without the data's fact ``nrefs`` (a set
    applies to any number of references)."""
    return {m: re.sub(r"\|nrefs:\d+(?=\|)", "", table.signatures.get(m, ""))  # type: ignore[attr-defined]
            for m in specs}


def member_record(tables: Sequence[object], specs: Sequence[str]) -> dict[str, object]:
    """What a set records of its members (:func:`mtstrata.metrics.members.set_record`): each
    one's signature, and an external member's score files and their sha256 on every pair."""
    from mtstrata.metrics.members import set_record

    return set_record(specs, set_signatures(tables[0], specs),
                      [t.lp for t in tables])  # type: ignore[attr-defined]


def _signatures(specs: list[str], names: dict[str, str], tables: list) -> str:  # type: ignore[type-arg]
    """``signatures:`` then ``NAME  SIGNATURE`` per metric (``NAME [lp,...]`` where the pairs
    differ, e.g. in their number of references)."""
    from mtstrata.meta.records import Correlation, signature_lines

    recs = [Correlation(t.lp, names[m], "sys", "-", 0.0, signature=t.signatures.get(m))
            for m in specs for t in tables]
    return "signatures:\n" + "".join(f"  {x}\n" for x in signature_lines(recs))
