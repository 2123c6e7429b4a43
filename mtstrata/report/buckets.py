"""compare-mt's word accuracy analyses: word F-measure by reference-frequency bucket and by
sentence-length bucket, every figure with its counts.

Definitions follow compare-mt (Neubig et al., 2019; ``compare_mt/bucketers.py``), re-implemented
here:

* Words are matched per sentence, left to right: the k-th occurrence of a word in the output
  matches the k-th occurrence of the same word in the reference, if there is one
  (:func:`match_words`).
* Frequency buckets: a reference word falls in the bucket of its count in the frequency corpus
  (the references, or a training-side file the user gives); an output word in the bucket of the
  reference word it matched, an unmatched one in the bucket of its own count. Cut-offs ``[1, 2,
  3, 4, 5, 10, 100, 1000]``: buckets ``<1`` (unseen), ``1``, ``2``, ``3``, ``4``, ``[5,10)``,
  ``[10,100)``, ``[100,1000)``, ``>=1000``.
* Per bucket: ``match`` (matched output words), ``ref`` (reference words), ``out`` (output
  words); recall match/ref, precision match/out, F-measure their harmonic mean (0 when
  ``match`` is 0, as compare-mt).
* Length buckets: sentences by the reference's length in words, cut-offs ``[10, 20, 30, 40, 50,
  60]``; per bucket the number of sentences and the word counts and F-measure of the sentences
  in it.

Words are the 13a tokens of sacreBLEU (as BLEU's), case kept, matched against reference 1.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FREQ_CUTOFFS = (1, 2, 3, 4, 5, 10, 100, 1000)
LENGTH_CUTOFFS = (10, 20, 30, 40, 50, 60)


def tokenize(lines: Iterable[str]) -> list[list[str]]:
    """sacreBLEU's 13a tokens of each line (BLEU's words)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    return [tok(line).split() for line in lines]


def bucket_names(cutoffs: Sequence[int]) -> list[str]:
    """compare-mt's bucket labels: ``<1``, ``1``, ..., ``[5,10)``, ..., ``>=1000``."""
    names = []
    for i, x in enumerate(cutoffs):
        if i == 0:
            names.append(f"<{x}")
        elif x - 1 == cutoffs[i - 1]:
            names.append(f"{x - 1}")
        else:
            names.append(f"[{cutoffs[i - 1]},{x})")
    names.append(f">={cutoffs[-1]}")
    return names


def bucket_of(value: int, cutoffs: Sequence[int]) -> int:
    """The index of the first cut-off above ``value`` (the last bucket if none is)."""
    return bisect.bisect_right(cutoffs, value)


def match_words(ref: Sequence[str], out: Sequence[str]) -> list[int]:
    """For each output word, the position of the reference word it matches, or -1: the k-th
    occurrence of a word matches the k-th occurrence in the reference."""
    where: dict[str, list[int]] = {}
    for i, w in enumerate(ref):
        where.setdefault(w, []).append(i)
    seen: dict[str, int] = {}
    matches = []
    for w in out:
        pos = where.get(w)
        if pos is None:
            matches.append(-1)
            continue
        k = seen.get(w, 0)
        seen[w] = k + 1
        matches.append(pos[k] if k < len(pos) else -1)
    return matches


def all_matches(ref: Sequence[Sequence[str]], outs: Mapping[str, Sequence[Sequence[str]]]
                ) -> dict[str, list[list[int]]]:
    """:func:`match_words` of every sentence of every system (computed once, used by both
    bucketings)."""
    return {name: [match_words(r, o) for r, o in zip(ref, out, strict=True)]
            for name, out in outs.items()}


def f_measure(match: int, ref: int, out: int) -> dict[str, Any]:
    """Counts, recall, precision and F-measure (all 0 when nothing matched)."""
    if match == 0:
        rec = prec = f = 0.0
    else:
        rec, prec = match / ref, match / out
        f = 2 * prec * rec / (prec + rec)
    return {"match": match, "ref": ref, "out": out, "recall": round(rec, 6),
            "precision": round(prec, 6), "f": round(f, 6)}


@dataclass(frozen=True)
class FreqCorpus:
    """The word counts of a frequency corpus (``report --freq-corpus``) and its number of
    lines: all the analyses need of it, so the file is counted line by line, never held."""

    counts: Counter[str]
    lines: int


def count_words(lines: Iterable[str]) -> FreqCorpus:
    """:class:`FreqCorpus` of ``lines`` (13a tokens, as :func:`tokenize`), one line at a time:
    memory grows with the vocabulary, not with the file."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    counts: Counter[str] = Counter()
    n = 0
    for line in lines:
        counts.update(tok(line).split())
        n += 1
    return FreqCorpus(counts, n)


def word_counts(corpus: Iterable[Sequence[str]]) -> Counter[str]:
    """How often each word occurs in a tokenized corpus."""
    counts: Counter[str] = Counter()
    for words in corpus:
        counts.update(words)
    return counts


def by_frequency(ref: Sequence[Sequence[str]], outs: Mapping[str, Sequence[Sequence[str]]],
                 freq: Mapping[str, int], cutoffs: Sequence[int] = FREQ_CUTOFFS,
                 matches: Mapping[str, Sequence[Sequence[int]]] | None = None
                 ) -> dict[str, Any]:
    """Word F-measure of each system per frequency bucket (compare-mt's ``freq`` bucketer);
    ``matches``: :func:`all_matches`, if already computed."""
    matches = matches if matches is not None else all_matches(ref, outs)
    nb = len(cutoffs) + 1
    ref_b = [[bucket_of(freq.get(w, 0), cutoffs) for w in sent] for sent in ref]
    ref_tot = [0] * nb
    for sent_b in ref_b:
        for b in sent_b:
            ref_tot[b] += 1
    per_sys = {}
    for name, out in outs.items():
        match, tot = [0] * nb, [0] * nb
        for rb, o, ms in zip(ref_b, out, matches[name], strict=True):
            for w, m in zip(o, ms, strict=True):
                b = rb[m] if m >= 0 else bucket_of(freq.get(w, 0), cutoffs)
                tot[b] += 1
                match[b] += m >= 0
        per_sys[name] = [f_measure(match[b], ref_tot[b], tot[b]) for b in range(nb)]
    return {"buckets": bucket_names(cutoffs), "ref": ref_tot, "systems": per_sys}


def by_length(ref: Sequence[Sequence[str]], outs: Mapping[str, Sequence[Sequence[str]]],
              cutoffs: Sequence[int] = LENGTH_CUTOFFS,
              matches: Mapping[str, Sequence[Sequence[int]]] | None = None) -> dict[str, Any]:
    """Word F-measure of each system per reference-length bucket, with the sentence counts."""
    matches = matches if matches is not None else all_matches(ref, outs)
    nb = len(cutoffs) + 1
    which = [bucket_of(len(r), cutoffs) for r in ref]
    sentences = [which.count(b) for b in range(nb)]
    per_sys = {}
    for name, out in outs.items():
        match, rtot, otot = [0] * nb, [0] * nb, [0] * nb
        for b, r, o, ms in zip(which, ref, out, matches[name], strict=True):
            match[b] += sum(m >= 0 for m in ms)
            rtot[b] += len(r)
            otot[b] += len(o)
        per_sys[name] = [f_measure(match[b], rtot[b], otot[b]) for b in range(nb)]
    return {"buckets": bucket_names(cutoffs), "sentences": sentences, "systems": per_sys}
