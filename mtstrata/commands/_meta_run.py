"""What ``mtstrata meta`` prints once its score tables are built: the correlation records (and
the ``--versus`` tests), or a ``--protocol``'s table."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mtstrata import output as _output


def segment_signed(records: list[Any], specs: dict[str, str]) -> list[Any]:
    """``records`` with each segment-level record signed by the signature of the segment
    scores it correlates (:func:`mtstrata.metrics.provenance.segment_signature`: BLEU's are
    sentence BLEU, ``eff:yes``); ``specs`` maps a record's metric name to its spec."""
    import dataclasses

    from mtstrata import metrics
    from mtstrata.meta.mtme import is_external
    from mtstrata.metrics.provenance import segment_signature

    built = {name: metrics.create(spec) for name, spec in specs.items()
             if not is_external(spec)}
    return [dataclasses.replace(r, signature=segment_signature(built[r.metric], r.signature))
            if r.level == "seg" and r.metric in built and isinstance(r.signature, str)
            and r.signature else r for r in records]



def run_protocol_tables(args: argparse.Namespace, tables: list[Any], specs: list[str],
                        ulcs: dict[str, Any], names: dict[str, str]) -> int:
    """``--protocol``: the protocol on the tables, printed as the WMT papers print it."""
    from mtstrata.errors import InputError
    from mtstrata.meta.protocol_tables import run_protocol
    from mtstrata.meta.protocol_text import format_text, format_tsv, records
    from mtstrata.meta.protocols import PROTOCOLS
    from mtstrata.meta.records import metric_arrays, record_items

    items = record_items(specs, ulcs, names)
    arrays = {t.lp: {name: metric_arrays(t, key, ulc) for key, name, ulc in items}
              for t in tables}
    res = run_protocol(PROTOCOLS[args.protocol], tables, arrays, [n for _, n, _ in items],
                       k=args.resamples, seed=args.seed)
    if not res.average:
        where = "; ".join(f"{m}: {', '.join(w)}" for m, w in res.left_out.items())
        raise InputError(f"--protocol {args.protocol}: no metric is defined in every task "
                         f"({where}). SPA needs segments judged for every system, acc_eq "
                         "segments judged for two or more systems.")
    if args.format == "json":
        sys.stdout.write(_output.dumps(records(res)))
    else:
        sys.stdout.write(format_tsv(res) if args.format == "tsv" else format_text(res))
    return 0


def run_records(args: argparse.Namespace, tables: list[Any], specs: list[str],
                sets: dict[str, tuple[Any, object]], names: dict[str, str], options: Any,
                versus: str | None) -> int:
    """The correlation records (and ``--versus`` tests) of every table."""
    from dataclasses import replace

    from mtstrata.commands import _options
    from mtstrata.languages import in_language
    from mtstrata.meta.record_text import format_records, format_tsv
    from mtstrata.meta.records import pooled_accuracy, table_records, with_average
    from mtstrata.meta.table_cache import metric_signatures_of
    from mtstrata.meta.versus import format_tests, format_tests_tsv, meta_tests

    records = []
    ulcs = {n: c for n, (c, _) in sets.items()}
    for table in tables:
        _options.check_resamples(args.bootstrap, "--bootstrap",
                                 items=max(len(table.systems), len(table.seg_human)))
        sigs = {names[s]: table.signatures.get(s, "") for s in specs}
        mine = options if table.language == options.language else replace(
            options, language=table.language, plan=None)
        for name, (_, sig) in sets.items():  # a set metric is signed as score signs it
            sigs[name] = sig if isinstance(sig, str) else metric_signatures_of(
                [sig], table.nrefs, mine)[0]
        with in_language(table.language):  # its specs signed as the pair's table read them
            records += segment_signed(
                table_records(table, specs, ulcs, n=args.bootstrap, seed=args.seed,
                              names=names, signatures=sigs),
                {names[s]: s for s in specs})
    records = [*with_average(records),
               *pooled_accuracy(tables, specs, ulcs, names=names, records=records)]
    tests, ranks = (meta_tests(tables, specs, ulcs, names, records, versus,
                               k=args.resamples, seed=args.seed) if versus else ([], []))
    if args.format == "json":
        sys.stdout.write(_output.dumps([r.to_dict() for r in [*records, *tests, *ranks]]))
    elif args.format == "tsv":
        sys.stdout.write(format_tsv(records) + format_tests_tsv(tests, ranks))
    else:
        sys.stdout.write(format_records(records) + format_tests(tests, ranks, args.seed))
    return 0
