"""``mtstrata meta``: correlations of metrics (and ULC sets) with human judgments."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mtstrata import progress
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.commands.options import add_data_options

if TYPE_CHECKING:
    from mtstrata.metrics.setfile import Combiner


def expand_metrics(specs: list[str]) -> list[str]:
    """Metric specs with ``lexical`` expanded to the candidate variants."""
    from mtstrata.meta.table_cache import LEXICAL_CANDIDATES

    out: list[str] = []
    for s in specs:
        out.extend(LEXICAL_CANDIDATES if s == "lexical" else [s])
    return list(dict.fromkeys(out))


def is_set_spec(spec: str) -> bool:
    """``ulc:SET.json`` or a bundled set (``ULC``, ``ULC-lex``, ``ULC-emb``): a metric set used
    as a metric."""
    from mtstrata.metrics.ulc import is_set_spec as _is_set_spec

    return _is_set_spec(spec)


def read_corpora(dirs: list[str], *, rows_by_pair: bool = True) -> list:  # type: ignore[type-arg]
    """Every ``--data`` directory read and validated, before any work. The same directory
    twice is refused (counted twice in the averages; in a search, a held-out pair that is
    also a training pair); with ``rows_by_pair`` (``meta``, whose rows are named by the pair)
    so are two pairs of one name from different datasets, which would be one row counted
    twice. ``search`` names its dev pairs ``dataset/pair`` and takes them."""
    from mtstrata.errors import InputError
    from mtstrata.meta.data import read_dev_corpus

    corpora = [read_dev_corpus(d) for d in dirs]
    seen: dict[object, str] = {}
    for d, c in zip(dirs, corpora, strict=True):
        keys = [(Path(d).resolve(), "is given twice")]
        if rows_by_pair:
            keys.append((("lp", c.lp), "has the same pair name as"))
        for key, what in keys:
            if key in seen:
                raise InputError(
                    f"--data {d} {what} {seen[key]}: its rows would be counted twice in the "
                    "averages (and a search would score held-out on a training pair). Give each "
                    "pair once; evaluate pairs of the same name from different datasets in "
                    "separate runs.")
            seen[key] = d
    from mtstrata.tokenized import warn_corpora  # sacreBLEU's tokenised-input warning

    warn_corpora(dirs, corpora)
    return corpora


def metric_names(specs: list[str]) -> dict[str, str]:
    """spec -> canonical name (:mod:`mtstrata.meta.names`), one spec per name: a second
    spelling of the same metric is dropped, two external metrics of one name are refused."""
    from mtstrata import metrics
    from mtstrata.errors import InputError
    from mtstrata.meta.mtme import is_external
    from mtstrata.meta.names import canonical_name, external_name

    out: dict[str, str] = {}
    for spec in specs:
        name = external_name(spec) if is_external(spec) else canonical_name(metrics.create(spec))
        other = next((s for s, n in out.items() if n == name), None)
        if other is not None and is_external(spec):
            raise InputError(f"-m {other} and -m {spec} are both named {name}; rename one "
                             "of the score files (NAME-REF.seg.score) or evaluate them in "
                             "separate runs.")
        if other is None:
            out[spec] = name
    return out


def external_columns(specs: list[str], corpora: list) -> dict[str, list]:  # type: ignore[type-arg]
    """spec -> per corpus (system scores, segment scores, signature) of every ``ext:`` spec:
    every file read and checked (existence, format, systems, segment counts, finite values)
    before any score table is built."""
    from mtstrata.meta.mtme import external_scores, is_external
    from mtstrata.meta.names import external_signature

    out: dict[str, list] = {}  # type: ignore[type-arg]
    for spec in (s for s in specs if is_external(s)):
        cols = []
        for c in corpora:
            sys_s, seg_s, path = external_scores(spec, c.lp, list(c.systems), c.n_segments)
            cols.append((sys_s, seg_s, external_signature(spec, path)))
        out[spec] = cols
    return out


def load_tables(args: argparse.Namespace, specs: list[str], options: Any = None
                ) -> list:  # type: ignore[type-arg]
    """Cached score tables of every ``--data`` directory holding ``specs``; external metrics
    (``ext:DIR/NAME``) are read from their score files into each table (never cached). Every
    input (directories, external files) is checked before any table is built. ``options``:
    the run's annotation options and plan (default: those of ``args``, planned here once for
    ``specs``)."""
    from mtstrata.commands.options import data_language, pair_language, run_options
    from mtstrata.meta.mtme import is_external
    from mtstrata.meta.table_cache import cached_table

    def computing(lp: str, todo: list[str]) -> None:
        if not getattr(args, "quiet", False):
            logging.getLogger("mtstrata").info("%s: computing %d metric(s) into %s", lp,
                                               len(todo), args.tables)

    corpora = read_corpora(args.data, rows_by_pair=getattr(args, "command", "") != "search")
    external = external_columns(specs, corpora)
    ours = [s for s in specs if not is_external(s)]
    from mtstrata import metrics
    from mtstrata.languages import in_language

    if options is None:
        options = run_options(args, [metrics.create(s) for s in ours], data_language(args))
    by_language = {options.language: options}  # (one plan per target language of the pairs)

    def pair_options(d: str, lang: str) -> Any:
        from dataclasses import replace
        from pathlib import Path

        if lang not in by_language:
            by_language[lang] = run_options(args, [metrics.create(s) for s in ours], lang)
        return replace(by_language[lang], references=str(Path(d) / "ref.txt"))

    tables = []
    for d, c in progress.track(list(zip(args.data, corpora, strict=True)), "score tables",
                               unit="pair"):
        lang = pair_language(args, d)
        with in_language(lang):  # the specs read in the pair's language (their defaults)
            tables.append(cached_table(d, ours, args.tables, pair_options(d, lang),
                                       on_compute=computing, corpus=c))
    for d, t in zip(args.data, tables, strict=True):
        t.language = pair_language(args, d)
    for k, t in enumerate(tables):
        for spec, cols in external.items():
            sys_scores, seg_scores, sig = cols[k]
            t.add(spec, sys_scores, seg_scores, True)
            t.signatures[spec] = sig
    return tables


PROTOCOL_NAMES = ("wmt23", "wmt24", "wmt24-on-wmt23", "wmt25")


@COMMANDS.register("meta")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "meta", formatter_class=Formatter, help="correlate metrics with human judgments",
        description="System-level Pearson/Spearman/Kendall/pairwise accuracy and soft "
        "pairwise accuracy (SPA), segment-level Pearson/Kendall and tie-calibrated pairwise "
        "accuracy (acc_eq, by item, by system and flat) of each metric (and of saved ULC sets) "
        "per language pair, averaged (unweighted over pairs) and, for pairwise accuracy, "
        "pooled over all system pairs; each record with the systems, judged segments, items "
        "or pairs it rests on; Pearson with a seeded percentile bootstrap interval. --versus "
        "tests metric against metric (PERM-BOTH, pair swaps for acc_eq, Williams) with "
        "significance clusters; --protocol runs a WMT metrics task's protocol. See "
        "docs/meta-evaluation.md.")
    add_data_options(p)
    p.add_argument("--ulc", nargs="+", default=[], metavar="SET.json",
                   help="metric sets written by 'mtstrata search --out'")
    p.add_argument("--bootstrap", type=int, default=None, metavar="N",
                   help="bootstrap resamples for the Pearson intervals (default 1000; 0: none; "
                   "at most 100,000)")
    p.add_argument("--seed", type=int, default=12345,
                   help="random seed of the bootstrap and of the permutation test "
                   "(0..2**32-1)")
    p.add_argument("--versus", metavar="METRIC|all",
                   help="metric-vs-metric significance: every other metric tested against "
                   "METRIC (a name or -m spec of this run), or 'all': every pair, both ways, "
                   "with significance clusters. Each statistic of both levels by the PERM-BOTH "
                   "permutation test (Deutsch et al. 2021, mt-metrics-eval's "
                   "PermutationSigDiff, with the statistic's own grouping; item-wise acc_eq "
                   "by swapping pair outcomes), Pearson also by Williams' test (one-sided, on "
                   "the rows both metrics score); p is for 'metric correlates better than "
                   "versus', resampled differences equal to delta counted")
    p.add_argument("--resamples", type=int, default=None, metavar="N",
                   help="with --versus: permutations of each test (1..100,000, default 1000); "
                   "with --protocol: the most resamples of each significance test (0: none, "
                   "every metric its own rank; default 1000)")
    p.add_argument("--protocol", choices=sorted(PROTOCOL_NAMES), metavar="NAME",
                   help="a WMT metrics task's protocol, as mt-metrics-eval's task sets define "
                   "it, on the --data pairs: wmt23 (pooled system accuracy; system and segment "
                   "Pearson; item-wise acc_eq), wmt24, wmt24-on-wmt23, wmt25 (SPA and "
                   "item-wise acc_eq): every task's value and significance cluster, the "
                   "weighted mean and its clusters, printed as the WMT papers print them")
    p.add_argument("--format", "-f", choices=["text", "json", "tsv"], default="text",
                   help="text: a table per level, then each metric's signature; json: strict "
                   "JSON records, each with its metric's signature (null where a correlation "
                   "is undefined); tsv: one record a line with a signature column")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.set_defaults(func=run)


def run_metrics(args: argparse.Namespace, specs: list[str]) -> list[Any]:
    """Every metric a ``meta`` run computes, signs or checks: the ``-m`` metrics (sets as
    metrics included) and the members of the ``--ulc`` sets; external ones aside (their scores
    are read, not computed)."""
    from mtstrata import metrics
    from mtstrata.meta.mtme import is_external
    from mtstrata.metrics.setfile import load_set

    members = [m for path in args.ulc for m in load_set(path)[0].metrics]
    return [metrics.create(s) for s in dict.fromkeys([*specs, *members]) if not is_external(s)]


def metric_sets(args: argparse.Namespace, specs: list[str], taken: set[str],
                options: Any = None) -> dict[str, tuple[Combiner, object]]:
    """Name -> (combiner, signature) of every set of ``--ulc`` and ``-m ulc:SET`` / ``-m ULC``.
    The signature is a string (a ``--ulc`` file: the file and its sha256) or the set metric,
    signed per table by the run (its members' annotation included). Two sets of one name
    (the same file stem) are refused. Members are checked under the run's ``options`` (default:
    those of ``args``)."""
    from mtstrata import metrics
    from mtstrata.errors import InputError
    from mtstrata.meta.mtme import is_external
    from mtstrata.meta.names import set_signature
    from mtstrata.metrics.setfile import load_set

    sets: dict[str, tuple[Combiner, object]] = {}
    where: dict[str, str] = {}

    def add(name: str, combiner: Combiner, sig: object, given: str) -> None:
        if name in sets or name in taken:
            raise InputError(f"{given} and {where.get(name, 'a metric')} are both named "
                             f"{name!r} (sets are named by their file stem): the rows would "
                             "be one. Rename one of the files.")
        sets[name], where[name] = (combiner, sig), given

    # --ulc: a set of any kind (uniform, learned...) combined from the cached member columns
    from mtstrata.commands.options import annotation_options
    from mtstrata.metrics.provenance import plan_for
    from mtstrata.metrics.ulc import check_set

    options = options if options is not None else annotation_options(args)
    for path in args.ulc:  # the member check of -m ulc:SET, under this run's annotation
        combiner, digest = load_set(path)
        check_set(combiner, path, options)
        full = Path(path).resolve()
        # signed as the set metric when it is one; a set with ext: members is not (score
        # cannot compute them): the file and its sha256
        sig = (set_signature(full, digest) if any(is_external(m) for m in combiner.metrics)
               else metrics.create(f"ulc:{full}"))
        add(f"ULC:{Path(path).stem}", combiner, sig, f"--ulc {path}")
    # -m ulc:SET.json, -m ULC: the set as a metric (members' signatures checked), combined
    # from the members' cached score columns as score computes it from their statistics
    for spec in [s for s in specs if is_set_spec(s)]:
        m = metrics.create(spec)
        m.check_run(plan_for(m.members, options))  # type: ignore[attr-defined]
        add(m.display_name(), m.combiner, m, f"-m {spec}")  # type: ignore[attr-defined]
    return sets


def check_numbers(args: argparse.Namespace) -> None:
    """Options that do nothing with the others are refused (``--resamples`` without
    ``--versus`` or ``--protocol``; ``--bootstrap`` or ``--versus`` with ``--protocol``, which
    prints its own table); then ``--bootstrap``, ``--resamples`` and ``--seed``
    (:mod:`mtstrata.commands._options`), defaults filled in."""
    from mtstrata.commands import _options
    from mtstrata.errors import ConfigError

    useless = []
    if args.resamples is not None and args.versus is None and args.protocol is None:
        useless.append("--resamples (it belongs to --versus or --protocol)")
    if args.protocol is not None:
        useless += [f"{o} (--protocol prints its own table and significance clusters)"
                    for o, v in (("--bootstrap", args.bootstrap), ("--versus", args.versus))
                    if v is not None]
    if useless:
        raise ConfigError("options that do nothing here: " + "; ".join(useless)
                          + ". Leave them out, or add the option they belong to.")
    args.bootstrap = 1000 if args.bootstrap is None else args.bootstrap
    args.resamples = 1000 if args.resamples is None else args.resamples
    _options.check_resamples(args.bootstrap, "--bootstrap", allow_zero=True)
    _options.check_resamples(args.resamples, "--resamples",
                             allow_zero=args.protocol is not None)
    _options.check_seed(args.seed)


def spec_name(spec: str) -> str | None:
    """The record name ``-m SPEC`` would give (None if SPEC is not a metric spec): how
    ``--versus`` resolves a spelling ``-m`` did not use."""
    from mtstrata import metrics
    from mtstrata.errors import MtstrataError
    from mtstrata.meta.mtme import is_external
    from mtstrata.meta.names import canonical_name, external_name

    try:
        if is_external(spec):
            return external_name(spec)
        m = metrics.create(spec)
        return m.display_name() if is_set_spec(spec) else canonical_name(m)
    except MtstrataError:
        return None


def run(args: argparse.Namespace) -> int:
    from mtstrata.commands._meta_run import run_protocol_tables, run_records
    from mtstrata.errors import InputError
    from mtstrata.meta.versus import resolve_versus

    progress.configure(quiet=args.quiet)
    check_numbers(args)
    specs = expand_metrics(args.metrics)
    names = metric_names([s for s in specs if not is_set_spec(s)])
    # the run's plan, resolved once for every metric it computes or checks, is passed down
    options = run_options_for(args, specs)
    sets = metric_sets(args, specs, set(names.values()), options)
    specs = list(names)
    if not specs and not sets:
        raise InputError("nothing to evaluate: pass metrics with -m and/or --ulc SET.json.")
    versus = None
    if args.versus is not None:  # checked before any score table is built
        known = {**names, **{n: n for n in names.values()}, **{n: n for n in sets}}
        versus = resolve_versus(args.versus, known, spec_name)
    if args.protocol is not None:
        from mtstrata.meta.data import check_segment_judgments

        check_segment_judgments(args.data, f"--protocol {args.protocol}")
    needed = list(dict.fromkeys([*specs, *(m for c, _ in sets.values() for m in c.metrics)]))
    tables = load_tables(args, needed, options)
    ulcs = {n: c for n, (c, _) in sets.items()}
    if args.protocol is not None:
        return run_protocol_tables(args, tables, specs, ulcs, names)
    return run_records(args, tables, specs, sets, names, options, versus)


def run_options_for(args: argparse.Namespace, specs: list[str]) -> Any:
    """The run's annotation options and plan, for every metric it computes or checks."""
    from mtstrata.commands.options import data_language, run_options

    return run_options(args, run_metrics(args, specs), data_language(args))
