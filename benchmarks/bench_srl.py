"""Quality and speed of semantic-role labellers on gold PropBank data (and the hand-written sets).

**Gold PropBank** (``propbank_ewt/dev.jsonl``, read in place from ``--data``, else
``$MTSTRATA_DATA``, else ``../shared/data``; see ``tools/srl_propbank.py``): every sentence is
annotated from its gold tokens as given (a spaCy ``Doc`` built from the words, run through the
pinned pipeline's tagger, lemmatizer and parser), so no sentence is skipped and spans index the
same tokens. Each labeller then labels the parsed segments (one batched call) and is scored
CoNLL-2005 style (``tools/srl_eval.py``): verbal predicates (gold tag ``VB*``) and exact labelled
argument spans, overall and per role. Printed: load times, the spaCy parse time per sentence and
each labeller's labelling time per sentence (the cost of roles on top of a parse), each over two
passes (the first pays one-off costs such as memory growth), on the chosen part of the fixed
document split (``--part``: the held-out part by default; ``all``, ``train``).

**WMT** (``--wmt LPDIR ...``): segment-level Pearson and Kendall correlation of SR-Or(*) (or
each of ``--wmt-metrics``) with the DA judgments of dev-corpus pairs
(``../shared/data/wmt17_toen_da/<lp>``), per labeller.

**Hand-written sets** (``--gold-sets``): tests/data/srl_gold.txt (development set of the rules)
and srl_gold_test.txt (written after the rules were frozen), scored the same way; their
sentences are parsed from their tokens.

Run: ``.venv/bin/python -m benchmarks.bench_srl [--data DIR] [--labeller rules
learned contextual] [--part heldout|train|all] [--gold-sets] [--wmt LPDIR... [--wmt-metrics
M...]]``. A labeller is a registered one (``rules``, ``learned``, ``contextual``) or
``module:Class`` (any class with ``name``, ``version`` and a batched ``label(segments)``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError
from mtstrata.segment import Frame, Segment
from tools import srl_eval
from tools import srl_propbank as pb
from tools.srl_gold import read_gold

ROOT = Path(__file__).resolve().parent.parent

DATA = ROOT / "tests" / "data"
GOLD_SETS = (DATA / "srl_gold.txt", DATA / "srl_gold_test.txt")


def make_labeller(spec: str) -> Any:
    """A registered labeller spec (``rules``, ``learned``) or ``module:Class``."""
    from mtstrata.layers import PROVIDERS

    module, _, cls = spec.partition(":")
    if "." in module and cls:
        return getattr(importlib.import_module(module), cls)()
    return PROVIDERS.create(spec)


def run(name: str, labeller: Any, segs: list[Segment], gold: list[tuple[Frame, ...]],
        parse_ms: tuple[float, float], load_s: float) -> list[tuple[Frame, ...]]:
    """Label ``segs``, score against ``gold``, print the figures; the frames."""
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        predicted = labeller.label(segs)
        times.append((time.perf_counter() - t0) * 1000 / max(1, len(segs)))
    counts = srl_eval.score(gold, predicted)
    print(f"\n--- {name}: {labeller.name} {labeller.version}; load {load_s:.2f} s; labelling "
          + ", ".join(f"pass {k + 1} {t:.3f} ms/sentence = {t / p:.2f}x the parse"
                      for k, (t, p) in enumerate(zip(times, parse_ms)))
          + f": annotation with roles costs {1 + max(t / p for t, p in zip(times, parse_ms)):.2f}x"
            " annotation without (worse pass)")
    print("\n".join(counts.table(min_gold=10)))
    lo, hi = srl_eval.f1_interval(gold, predicted)
    print(f"argument F1 95% interval (bootstrap over sentences, 1000, seed 12345): "
          f"[{lo:.3f}, {hi:.3f}]")
    missed = beyond_the_parse(segs, gold)
    found = {(k, f.predicate, a.start, a.end, a.label) for k, fs in enumerate(predicted)
             for f in fs for a in f.args} & missed
    print(f"gold arguments no candidate of the parse covers (tree.candidate_tuples): "
          f"{len(missed)}; labelled exactly: {len(found)}")
    return predicted


def beyond_the_parse(segs: list[Segment], gold: list[tuple[Frame, ...]]
                     ) -> set[tuple[int, int, int, int, str]]:
    """(sentence, predicate, start, end, role) of the gold arguments whose span no subtree
    candidate of the learned labeller (:func:`mtstrata.layers.srl.tree.candidate_tuples`)
    gives: what a labeller bound to the parse's subtrees cannot label."""
    from mtstrata.layers.srl.tree import Tree, candidate_tuples

    out = set()
    for k, (seg, frames) in enumerate(zip(segs, gold, strict=True)):
        tree = Tree(seg)
        for f in frames:
            have = {(lo, hi) for _, lo, hi, _, _ in candidate_tuples(tree, f.predicate)}
            out |= {(k, f.predicate, a.start, a.end, a.label) for a in f.args
                    if a.label not in srl_eval.NOT_ARGUMENTS and (a.start, a.end) not in have}
    return out


def timed_parse(nlp: Any, tokens: list[tuple[str, ...]]
                ) -> tuple[list[Segment], tuple[float, float]]:
    """Segments of ``tokens`` and the parse time per sentence of two passes (ms)."""
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        segs = pb.parse_tokens(nlp, tokens)
        times.append((time.perf_counter() - t0) * 1000 / max(1, len(tokens)))
    return segs, (times[0], times[1])


def save_frames(path: Path, version: str, part: str, frames: list[tuple[Frame, ...]]) -> None:
    """One labeller's frames on the part, as JSON (for ``--against`` in a later run)."""
    rows = [[[f.predicate, [[a.start, a.end, a.label] for a in f.args]] for f in fs]
            for fs in frames]
    from mtstrata.output import atomic_write

    atomic_write(path, json.dumps({"labeller": version, "part": part, "frames": rows}))
    print(f"frames written to {path}")


def load_frames(path: Path, part: str | None = None, n: int = 0
                ) -> tuple[str, list[tuple[Frame, ...]]]:
    """A file of :func:`save_frames`: its labeller and frames (checked to be of ``part``, with
    ``n`` sentences, unless ``part`` is None: the check before any work)."""
    from mtstrata.segment import Span

    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
        frames = [tuple(Frame(p, tuple(Span(a, b, r) for a, b, r in args)) for p, args in fs)
                  for fs in d["frames"]]
        ok = part is None or (d["part"] == part and len(frames) == n)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(f"--against {path}: not a frames file of bench_srl --save-frames "
                         f"({type(e).__name__}: {e}); write one with --save-frames.") from None
    if not ok:
        raise InputError(f"--against {path}: frames of part {d['part']!r} ({len(frames)} "
                         f"sentences), this run scores part {part!r} ({n}); run both alike.")
    return str(d["labeller"]), frames


def compare(gold: list[tuple[Frame, ...]], name: str, got: list[tuple[Frame, ...]],
            against: list[Path], part: str) -> None:
    """Paired argument-F1 difference of ``got`` against each saved labeller's frames."""
    for path in against:
        other, frames = load_frames(path, part, len(gold))
        d, lo, hi, p = srl_eval.f1_difference(gold, got, frames)
        print(f"argument F1 {name} - {other}: {d:+.3f}, 95% paired bootstrap interval "
              f"[{lo:+.3f}, {hi:+.3f}], approximate randomisation p {p:.4f} (10000, seed 12345)")


def propbank(specs: list[str], part: str, data: str | None = None, save: Path | None = None,
             against: tuple[Path, ...] = ()) -> None:
    path = pb.data_path(data)
    sents = pb.read(path)
    train, held = pb.split(sents)
    chosen = {"all": sents, "train": train, "heldout": held}[part]
    t0 = time.perf_counter()
    nlp = pb.load_spacy()
    load_s = time.perf_counter() - t0
    segs, parse_ms = timed_parse(nlp, [s.tokens for s in chosen])
    n_frames = sum(len(s.verbal_frames()) for s in chosen)
    print(f"gold PropBank {path}: part {part}: {len(chosen)} of {len(sents)} "
          f"sentences ({len({s.document for s in chosen})} documents), {n_frames} verbal "
          f"predicates; every sentence scored")
    print(f"spaCy {nlp.meta.get('name')} {nlp.meta.get('version')} ({'+'.join(nlp.pipe_names)})"
          f": load {load_s:.2f} s, parse pass 1 {parse_ms[0]:.3f}, pass 2 {parse_ms[1]:.3f} "
          "ms/sentence (batched, gold tokens)")
    gold = [s.verbal_frames() for s in chosen]
    for spec in specs:
        t2 = time.perf_counter()
        lab = make_labeller(spec)
        if hasattr(lab, "load"):
            lab.load()
        got = run("PropBank " + part, lab, segs, gold, parse_ms, time.perf_counter() - t2)
        compare(gold, lab.version, got, list(against), part)
        if save is not None:
            save_frames(save.with_name(f"{save.stem}.{lab.name}{save.suffix}"), lab.version,
                        part, got)


def gold_sets(specs: list[str]) -> None:
    nlp = pb.load_spacy()
    for path in GOLD_SETS:
        gold = read_gold(path)
        segs, parse_ms = timed_parse(nlp, [g.tokens for g in gold])
        print(f"\n=== {path.name}: {len(gold)} sentences, parse {parse_ms[1]:.3f} ms/sentence")
        for spec in specs:
            run(path.name, make_labeller(spec), segs, [g.frames for g in gold], parse_ms, 0.0)


def wmt(specs: list[str], dirs: list[str], metric: str = "SR-Or(*)") -> None:
    """Segment-level correlation of ``metric`` with WMT DA judgments, per labeller.

    Only the judged rows (``seg_scores.tsv``) are annotated and scored: each row's hypothesis
    against its reference; Pearson's r (as WMT17 segment-level DA) and Kendall's tau.
    """
    import numpy as np
    from scipy.stats import kendalltau, pearsonr

    from mtstrata.layers import AnnotationOptions
    from mtstrata.meta.data import read_dev_corpus
    from mtstrata.metrics import create
    from mtstrata.scoring import compute

    m = create(metric)
    print(f"\n=== {metric}: segment-level correlation with WMT DA (judged rows only)")
    results: dict[str, list[tuple[float, float]]] = {spec: [] for spec in specs}
    for d in dirs:
        c = read_dev_corpus(d)
        hyps = [c.systems[s][i] for s, i, _ in c.seg_rows]
        refs = [[c.refs[0][i] for _, i, _ in c.seg_rows]]
        human = [h for _, _, h in c.seg_rows]
        line = f"{c.lp}: {len(hyps)} rows"
        for spec in specs:
            t0 = time.perf_counter()
            run = compute({"judged": hyps}, refs, [m],
                          AnnotationOptions(labeller=spec, use_cache=False, quiet=True))
            scores = np.asarray(m.segment_scores(run.stats[("judged", 0)]), float)
            ok = ~np.isnan(scores)  # undefined where neither side has an argument
            h = np.asarray(human)[ok]
            r, tau = pearsonr(scores[ok], h)[0], kendalltau(scores[ok], h)[0]
            results[spec].append((float(r), float(tau)))
            line += (f"; {spec}: r {r:.3f} tau {tau:.3f} ({(~ok).sum()} undefined rows left "
                     f"out; {time.perf_counter() - t0:.0f} s)")
        print(line)
    for spec, vals in results.items():
        if vals:
            r_avg, tau_avg = (sum(v[k] for v in vals) / len(vals) for k in (0, 1))
            print(f"average over {len(vals)} pairs, {spec}: r {r_avg:.3f} tau {tau_avg:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=None, metavar="PATH",
                    help="the data directory holding propbank_ewt/dev.jsonl, or that file "
                    "(default: $MTSTRATA_DATA, else ../shared/data)")
    ap.add_argument("--labeller", nargs="+", default=["rules"])
    ap.add_argument("--part", choices=("heldout", "train", "all"), default="heldout")
    ap.add_argument("--gold-sets", action="store_true", help="also the hand-written sets")
    ap.add_argument("--wmt", nargs="+", metavar="LPDIR", default=[],
                    help="also SR-Or(*) segment-level correlation on these dev-corpus pairs")
    ap.add_argument("--wmt-metrics", nargs="+", metavar="METRIC", default=["SR-Or(*)"],
                    help="the metrics of --wmt (default: SR-Or(*))")
    ap.add_argument("--no-propbank", action="store_true")
    ap.add_argument("--save-frames", type=Path, default=None, metavar="FILE",
                    help="write each labeller's PropBank frames to FILE's name + .<labeller>")
    ap.add_argument("--against", type=Path, nargs="+", default=[], metavar="FILE",
                    help="frames saved by an earlier --save-frames run (another model): each "
                    "labeller's argument F1 difference to them, paired, with its interval and "
                    "an approximate-randomisation p")
    a = ap.parse_args()
    for path in a.against:  # a bad file stops the run before any work
        load_frames(path)
    if not a.no_propbank:
        propbank(a.labeller, a.part, a.data, a.save_frames, tuple(a.against))
    if a.gold_sets:
        gold_sets(a.labeller)
    for metric in a.wmt_metrics if a.wmt else ():
        wmt(a.labeller, a.wmt, metric)


if __name__ == "__main__":
    try:
        main()
    except InputError as e:  # a missing or malformed data file: its message, exit code 2
        print(f"bench_srl: {e}", file=sys.stderr)
        sys.exit(2)
