"""Accuracy of a layer provider on a Universal Dependencies test treebank, with intervals.

    python benchmarks/bench_ud.py ja_gsd-ud-test.conllu --provider ginza
    python benchmarks/bench_ud.py zh_gsdsimp-ud-test.conllu --provider udchinese --mode words

Reads a CoNLL-U file (its sentences' ``# text`` and words; multi-word token lines and empty
nodes are skipped: the words are what is scored) and annotates each sentence with the
provider (a spec of ``mtstrata list annotators``: ``ginza``, ``udchinese``, ``cs-spacy``,
``natasha``...). Two ways to feed it:

* ``--mode text`` (default): the sentence's text, as a run gives it a segment. The provider's
  words are aligned to the gold words by their character spans with whitespace removed, as
  the CoNLL 2018 shared task's evaluation script does; a figure is an F1 over words
  (``2 * correct / (gold words + system words)``), a word counting as correct for UPOS or
  lemma when it aligns and its value is equal, for UAS when its head aligns to the gold head
  too (or both are the root), for LAS when moreover the universal part of the relation
  (before ``:``) is equal. ``words`` is the F1 of the segmentation itself.
* ``--mode words``: the gold words, for a provider that takes them
  (``annotate_sentences``: tagged and parsed as given): the figures are accuracies.

Each figure comes with a 95% percentile bootstrap interval over sentences (``--resamples``).
The model's published figures, where its package states them (a spaCy pipeline's
``meta.json``), are printed beside them. No data is included: give the test file of a UD
treebank (https://github.com/UniversalDependencies/UD_*, ``*-ud-test.conllu``). Exit 2 with
one paragraph for a file that cannot be read or holds no sentence.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: the figures, in order, and the columns of the per-sentence counts
FIGURES = ("words", "upos", "lemma", "uas", "las")


@dataclass
class Sentence:
    text: str
    forms: list[str] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)
    upos: list[str] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)
    rels: list[str] = field(default_factory=list)


class BadInput(Exception):
    pass


def read_conllu(path: Path, limit: int | None = None) -> list[Sentence]:
    """The sentences of a CoNLL-U file (their words; ``# text`` or the words joined)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read it as UTF-8 text ({e}).") from None
    out: list[Sentence] = []
    for n, block in enumerate(raw.replace("\r\n", "\n").split("\n\n"), 1):
        text, rows = None, []
        for line in block.split("\n"):
            if line.startswith("# text = "):
                text = line[len("# text = "):]
            elif line and not line.startswith("#"):
                cols = line.split("\t")
                if len(cols) != 10:
                    raise BadInput(f"{path}: sentence {n} has a line of {len(cols)} columns, "
                                   "not CoNLL-U's 10 (is it a CoNLL-U file?).")
                if cols[0].isdigit():
                    rows.append(cols)
        if not rows:
            continue
        try:
            s = Sentence(text or " ".join(r[1] for r in rows), [r[1] for r in rows],
                         [r[2] for r in rows], [r[3] for r in rows], [int(r[6]) for r in rows],
                         [r[7] for r in rows])
        except ValueError:
            raise BadInput(f"{path}: sentence {n} has a head that is not a number.") from None
        out.append(s)
        if limit and len(out) >= limit:
            break
    if not out:
        raise BadInput(f"{path}: no sentence with words (is it a CoNLL-U file?).")
    return out


def _spans(forms: list[str]) -> list[tuple[int, int]]:
    """Each word's span in the concatenation of the words without whitespace."""
    out, pos = [], 0
    for f in forms:
        n = len("".join(f.split()))
        out.append((pos, pos + n))
        pos += n
    return out


def _rel(r: str | None) -> str:
    return (r or "").lower().partition(":")[0]


def counts(gold: Sentence, seg) -> np.ndarray:
    """[gold words, system words, aligned, upos, lemma, uas, las] of one sentence."""
    sys_forms = [t.form for t in seg.tokens]
    gs, ss = _spans(gold.forms), _spans(sys_forms)
    where = {sp: i for i, sp in enumerate(gs)}
    align = {j: where[sp] for j, sp in enumerate(ss) if sp in where}  # system -> gold
    c = np.zeros(7)
    c[0], c[1], c[2] = len(gs), len(ss), len(align)
    for j, i in align.items():
        t = seg.tokens[j]
        c[3] += t.upos == gold.upos[i]
        c[4] += t.lemma == gold.lemmas[i]
        h = t.head or 0
        head_ok = (h == 0 and gold.heads[i] == 0) or (
            h > 0 and align.get(h - 1, -1) == gold.heads[i] - 1 and gold.heads[i] > 0)
        c[5] += head_ok
        c[6] += head_ok and _rel(t.deprel) == _rel(gold.rels[i])
    return c


def figures(c: np.ndarray) -> np.ndarray:
    """F1 of each figure from summed counts (rows: samples)."""
    c = np.atleast_2d(c)
    denom = c[:, 0] + c[:, 1]
    return np.stack([2 * c[:, k] / denom for k in (2, 3, 4, 5, 6)], axis=1)


def bootstrap(per: np.ndarray, resamples: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each figure's 95% percentile interval over sentences."""
    rng = np.random.default_rng(seed)
    n = len(per)
    sums = np.stack([per[rng.integers(0, n, n)].sum(axis=0) for _ in range(resamples)])
    f = figures(sums)
    return np.percentile(f, 2.5, axis=0), np.percentile(f, 97.5, axis=0)


def published(provider) -> dict[str, float]:
    """The figures a spaCy pipeline's meta.json states (none for other providers)."""
    nlp = getattr(provider, "_load", None)
    if nlp is None:
        return {}
    try:
        model = nlp()
        perf = model.meta.get("performance") or model.meta.get("accuracy") or {}
    except Exception:  # not a spaCy pipeline
        return {}
    names = {"pos_acc": "upos", "lemma_acc": "lemma", "dep_uas": "uas", "dep_las": "las"}
    return {names[k]: float(v) for k, v in perf.items() if k in names and v}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("conllu", type=Path, help="a UD test file (*-ud-test.conllu)")
    ap.add_argument("--provider", required=True, help="the provider's spec (ginza, udchinese...)")
    ap.add_argument("--mode", choices=("text", "words"), default="text",
                    help="feed each sentence's text (aligned) or its gold words")
    ap.add_argument("--limit", type=int, default=None, help="the first N sentences only")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples")
    args = ap.parse_args(argv)
    from mtstrata.errors import MtstrataError
    from mtstrata.layers.planning import build

    try:
        if args.limit is not None and args.limit < 1:
            raise BadInput(f"--limit {args.limit}: give a number of sentences, 1 or more.")
        if args.resamples < 100:
            raise BadInput(f"--resamples {args.resamples}: give 100 or more.")
        gold = read_conllu(args.conllu, args.limit)
        provider = build(args.provider)
        if args.mode == "words" and not hasattr(provider, "annotate_sentences"):
            raise BadInput(f"the provider {args.provider!r} does not take given words; use "
                           "--mode text (its words are aligned to the gold words).")
    except (BadInput, MtstrataError) as e:
        print(f"bench_ud: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if args.mode == "words":
        segs = provider.annotate_sentences([g.forms for g in gold])
    else:
        from mtstrata.segment import Segment

        segs = list(provider.pipe((Segment.from_text(g.text) for g in gold),
                                  frozenset(provider.assigns)))
    took = time.perf_counter() - t0
    per = np.stack([counts(g, s) for g, s in zip(gold, segs, strict=True)])
    point = figures(per.sum(axis=0))[0]
    lo, hi = bootstrap(per, args.resamples)
    pub = published(provider)
    print(f"{args.conllu.name}: {len(gold)} sentences, {int(per[:, 0].sum())} gold words; "
          f"provider {provider.signature(frozenset(provider.assigns))}; mode {args.mode}; "
          f"{took:.1f} s ({1000 * took / len(gold):.1f} ms per sentence)")
    print(f"{'figure':8} {'value':>7}  95% interval     published")
    for k, name in enumerate(FIGURES):
        if name == "words" and args.mode == "words":
            continue
        p = f"{pub[name]:.3f}" if name in pub else "-"
        print(f"{name:8} {point[k]:7.3f}  [{lo[k]:.3f}, {hi[k]:.3f}]  {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
