"""``mtstrata audit``: Chiang et al. (2008, §3) decomposability scenarios on real outputs."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from mtstrata import metrics, progress, scoring
from mtstrata import output as _output
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.errors import InputError

EMPTY = "\0empty"  # a system name no file stem can take


@COMMANDS.register("audit")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit", formatter_class=Formatter,
        help="decomposability audit of metrics (Chiang et al. 2008)",
        description="Run the three scenarios of Chiang et al. (2008, §3) on the systems of a "
        "dev-corpus directory: (1) sign test by segment substitution vs the reverse test, "
        "(2) hybrids that beat a system on both halves of a split but not on the whole, "
        "(3) emptying the worst k% of segments without a significant loss. Prints the "
        "violations of each scenario per metric.")
    p.add_argument("--data", required=True, metavar="LPDIR",
                   help="a language-pair directory of the dev-corpus format (ref.txt, sys/)")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", metavar="METRIC",
                   help="metric specs (default: bleu; see `mtstrata list metrics`)")
    p.add_argument("--fraction", type=float, default=0.1,
                   help="share of segments emptied in scenario 3")
    p.add_argument("--splits", type=int, default=10, help="random splits in scenario 2")
    p.add_argument("-n", "--resamples", type=int, default=1000,
                   help="bootstrap resamples of the significance tests")
    p.add_argument("--seed", type=int, default=12345, help="random seed (splits, resampling)")
    p.add_argument("--format", "-f", choices=["text", "json"], default="text",
                   help="text: a summary per metric; json: strict JSON of every scenario")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display")
    p.set_defaults(func=run)


def audit_corpus(lp_dir: str, specs: list[str], *, fraction: float = 0.1, splits: int = 10,
                 n: int = 1000, seed: int = 12345) -> dict[str, dict[str, dict[str, object]]]:
    """Audit every metric on the systems of one dev-corpus directory."""
    from mtstrata.meta.audit import audit
    from mtstrata.meta.data import read_dev_corpus

    if not 0 < fraction < 1:
        raise InputError(f"--fraction must be between 0 and 1, not {fraction}.")
    corpus = read_dev_corpus(lp_dir)
    built = [metrics.create(s) for s in specs]
    outputs = dict(corpus.systems)
    outputs[EMPTY] = [""] * corpus.n_segments
    run = scoring.compute(outputs, corpus.refs, built)
    # the length split: segments where a system's output has at least as many words as the
    # (shortest) reference, the quantity BLEU's corpus-level brevity penalty aggregates
    ref_len = np.array([min(len(r[i].split()) for r in corpus.refs)
                        for i in range(corpus.n_segments)])
    lengths = {s: np.array([len(h.split()) for h in out]) >= ref_len
               for s, out in corpus.systems.items()}
    out: dict[str, dict[str, dict[str, object]]] = {}
    for i, (spec, m) in enumerate(zip(specs, built, strict=True)):
        stats = {s: run.stats[(s, i)] for s in corpus.systems}
        seg = {s: m.segment_scores(st) for s, st in stats.items()}
        empty = run.stats[(EMPTY, i)]
        out[spec] = audit(m.score, stats, empty, seg, m.segment_scores(empty),
                          higher_is_better=m.higher_is_better, fraction=fraction, seed=seed,
                          n=n, random_splits=splits, length_masks=lengths)
    return out


def summary_lines(result: dict[str, dict[str, dict[str, object]]]) -> list[str]:
    """One line per metric: violations of each scenario."""
    lines = [f"{'metric':14} {'sign-test contradictions':>26} {'split violations':>22} "
             f"{'deletion violations':>20} {'insignificant drops':>20}"]
    for spec, r in result.items():
        st, sp, de = r["sign_test"], r["split"], r["deletion"]
        lines.append(f"{spec:14} {st['self_contradictions']:>13} / {st['pairs']:<3} pairs"
                     f"{sp['violations']:>11} / {sp['triples']:<7}"
                     f"{de['violations']:>10} / {de['systems']:<2} systems"
                     f"{de['insignificant']:>11} / {de['systems']:<2}")
    return lines


def run(args: argparse.Namespace) -> int:
    progress.configure(quiet=args.quiet)
    specs = args.metrics or ["bleu"]
    result = audit_corpus(args.data, specs, fraction=args.fraction, splits=args.splits,
                          n=args.resamples, seed=args.seed)
    if args.format == "json":
        sys.stdout.write(_output.dumps(result))
        return 0
    lines = summary_lines(result)
    for spec, r in result.items():
        for ex in r["split"]["examples"][:2]:  # type: ignore[index]
            lines.append(f"  {spec} split example: {ex}")
        for row in r["deletion"]["rows"]:  # type: ignore[union-attr]
            if row["violation"]:  # type: ignore[index]
                lines.append(f"  {spec} deletion: {row}")
                break
        sc = r["sign_test"]
        lines.append(f"  {spec} sign test disagreeing with the corpus difference: "
                     f"{sc['disagreements']} pair(s)")
    lines.append(f"\nsplits: contiguous halves + {args.splits} random (seed {args.seed}) + "
                 "per system m: segments where m's output is at least as long as the reference; "
                 f"deletion: worst {args.fraction:.0%} emptied, paired bootstrap "
                 f"{args.resamples} resamples, alpha 0.05")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
