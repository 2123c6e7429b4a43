"""Quality of the rule-based semantic-role labeller on the hand-labelled gold set.

Parses every sentence of tests/data/srl_gold.txt with the pinned spaCy model (loaded directly
with ``spacy.load``; no network), converts the parses with the spaCy backend's ``to_segment``,
runs :func:`mtstrata.layers.srl.label_frames` and prints precision, recall and F1 of labelled
arguments per role and overall under two matchings:

* **exact**: same predicate token, same role, same ``[start, end)`` token span;
* **head**: same predicate token, same role, same head token of the span (the span token
  closest to the root of spaCy's parse; gold spans get their head from the same parse).

Also prints predicate identification and how many sentences spaCy's tokenizer splits
differently from the gold tokens (those are parsed from the gold tokens instead).

Two gold sets: ``srl_gold.txt`` (81 sentences; the rules were revised after error analysis on
it, so its figures are development figures) and ``srl_gold_test.txt`` (40 sentences written
after the rules were frozen; the honest estimate). Both are printed.

Run: ``.venv/bin/python benchmarks/bench_srl.py [gold-file ...]``
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import spacy
from spacy.tokens import Doc

from mtstrata.layers.base import SRL_NEEDS
from mtstrata.layers.spacy_backend import MODEL, components_for, to_segment
from mtstrata.layers.srl import SRL_VERSION, label_frames
from mtstrata.layers.srl_gold import read_gold
from mtstrata.segment import Frame, Segment

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
GOLD = (DATA / "srl_gold.txt", DATA / "srl_gold_test.txt")
NO_SPACE_BEFORE = {",", ".", ";", ":", "?", "!", "n't", "'s", "%", ")"}


def detokenise(tokens: Iterable[str]) -> tuple[str, list[bool]]:
    """Natural text for ``tokens`` and the trailing-space flags spaCy's Doc wants."""
    toks = list(tokens)
    spaces = [i + 1 < len(toks) and toks[i + 1] not in NO_SPACE_BEFORE for i in range(len(toks))]
    return "".join(t + (" " if s else "") for t, s in zip(toks, spaces)), spaces


def head_of(seg: Segment, start: int, end: int) -> int:
    """The token of ``[start, end)`` closest to the root (first on ties)."""
    def depth(i: int) -> int:
        d, seen = 0, set()
        while seg.tokens[i].head and i not in seen:
            seen.add(i)
            i = seg.tokens[i].head - 1
            d += 1
        return d
    return min(range(start, end), key=lambda i: (depth(i), i))


def keys(seg: Segment, frames: Iterable[Frame], mode: str) -> Counter[tuple[int, str, object]]:
    out: Counter[tuple[int, str, object]] = Counter()
    for f in frames:
        for a in f.args:
            where: object = (a.start, a.end) if mode == "exact" else head_of(seg, a.start, a.end)
            out[(f.predicate, a.label, where)] += 1
    return out


def prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def load() -> tuple[object, tuple[str, ...], float]:
    """The pinned model with the components the SRL layer needs, and its load time."""
    t0 = time.perf_counter()
    nlp = spacy.load(MODEL)
    comps = components_for(SRL_NEEDS)
    nlp.select_pipes(enable=[c for c in comps if c in nlp.pipe_names])
    return nlp, comps, time.perf_counter() - t0


def evaluate(path: Path, nlp: Any, comps: tuple[str, ...], load_s: float) -> None:
    """Parse, label and print the figures for one gold file."""
    gold = read_gold(path)
    segs: list[Segment] = []
    retokenised = 0
    for g in gold:
        text, spaces = detokenise(g.tokens)
        if [t.text for t in nlp.tokenizer(text)] == list(g.tokens):
            doc = nlp(text)
        else:  # keep the gold tokens so spans stay comparable; counted and printed
            retokenised += 1
            doc = nlp(Doc(nlp.vocab, words=list(g.tokens), spaces=spaces))
        segs.append(to_segment(text, doc, frozenset(SRL_NEEDS)))
    t1 = time.perf_counter()
    predicted = [label_frames(s) for s in segs]
    label_s = time.perf_counter() - t1

    gp = {(i, f.predicate) for i, g in enumerate(gold) for f in g.frames}
    pp = {(i, f.predicate) for i, fs in enumerate(predicted) for f in fs}
    n_args = sum(len(f.args) for g in gold for f in g.frames)
    print(f"SRL rule labeller {SRL_VERSION} on {path.name}: {len(gold)} sentences, "
          f"{len(gp)} gold predicates, {n_args} gold arguments")
    print(f"parser: spaCy {spacy.__version__} {MODEL} "
          f"{nlp.meta.get('version', '?')} ({'+'.join(comps)}); load {load_s:.1f} s; "
          f"spaCy tokenisation differs from gold in {retokenised} sentence(s)")
    print(f"labelling: {len(segs)} segments in {label_s * 1000:.1f} ms")
    p, r, f = prf(len(gp & pp), len(pp), len(gp))
    print(f"predicates: P {p:.3f}  R {r:.3f}  F1 {f:.3f}  (gold {len(gp)}, predicted {len(pp)})")
    for mode in ("exact", "head"):
        tp: Counter[str] = Counter()
        npred: Counter[str] = Counter()
        ngold: Counter[str] = Counter()
        for seg, g, fs in zip(segs, gold, predicted):
            kg, kp = keys(seg, g.frames, mode), keys(seg, fs, mode)
            for k, c in kg.items():
                ngold[k[1]] += c
            for k, c in kp.items():
                npred[k[1]] += c
            for k, c in (kg & kp).items():
                tp[k[1]] += c
        print(f"\nlabelled arguments, {mode} match")
        print(f"{'role':<8} {'gold':>5} {'pred':>5} {'tp':>5} {'P':>6} {'R':>6} {'F1':>6}")
        for role in sorted(ngold | npred):
            p, r, f = prf(tp[role], npred[role], ngold[role])
            print(f"{role:<8} {ngold[role]:>5} {npred[role]:>5} {tp[role]:>5} "
                  f"{p:>6.3f} {r:>6.3f} {f:>6.3f}")
        tot = sum(tp.values()), sum(npred.values()), sum(ngold.values())
        p, r, f = prf(*tot)
        print(f"{'overall':<8} {tot[2]:>5} {tot[1]:>5} {tot[0]:>5} {p:>6.3f} {r:>6.3f} {f:>6.3f}")


def main(paths: Iterable[Path]) -> None:
    nlp, comps, load_s = load()
    for k, path in enumerate(paths):
        if k:
            print("\n" + "=" * 60 + "\n")
        evaluate(path, nlp, comps, load_s)


if __name__ == "__main__":
    main([Path(a) for a in sys.argv[1:]] or GOLD)
