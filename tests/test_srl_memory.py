"""The contextual role labeller's memory per segment is bounded: a segment past the encoder's
length limit is encoded in blocks that each fit (every word gets its states), and the tagger
reads at most ``WINDOW`` words around a predicate, ``PREDICATE_ROWS`` predicates at a time.
Checked here by the shapes computed for long segments (what ``benchmarks/bench_srl_memory.py``
measures as peak memory); the benchmark's bad input is refused with exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtstrata.layers.srl import contextual as C
from tests.test_srl import CASES, parse

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("n", [1, 30, C.WINDOW, C.WINDOW + 1, 2000])
def test_the_tagger_reads_a_window_around_each_predicate(n):
    for p in {0, n // 2, n - 1}:
        a, b = C.window(n, p)
        assert a <= p < b and b - a == min(n, C.WINDOW)
        assert (a, b) == (0, n) or n > C.WINDOW  # a segment within it: whole, as before


class Pieces:
    """An encoder's ``pieces`` and ``max_len``: word ``w`` of ``len(w)`` pieces, [CLS] and
    [SEP] around them, cut at ``max_len``."""

    max_len = 10

    def pieces(self, lists):
        out = []
        for words in lists:
            ids, wids = [101], [-1]
            for i, w in enumerate(words):
                ids += [7] * len(w)
                wids += [i] * len(w)
            ids, wids = ids[:self.max_len - 1] + [102], wids[:self.max_len - 1] + [-1]
            out.append((ids, wids))
        return out


@pytest.mark.parametrize("words", [["a", "bb", "c"], ["abc"] * 11, ["a", "x" * 30, "b"],
                                   ["ab", "cd", "ef", "gh", "i"], []])
def test_blocks_cover_every_word_once_within_the_limit(words):
    enc = Pieces()
    got = C.blocks(enc, words)
    starts = [s for s, _, _, _ in got]
    assert starts == sorted(starts) and starts[0] == 0
    assert sum(k for _, k, _, _ in got) == len(words)
    for (s, k, ids, wids), nxt in zip(got, [*starts[1:], len(words)], strict=True):
        assert s + k == nxt and len(ids) <= enc.max_len and max(wids, default=-1) < k + 1
    if len(enc.pieces([words])[0][0]) < enc.max_len:  # fits: one block, the whole text's
        assert got == [(0, len(words), *enc.pieces([words])[0])]


def _long(copies: int):
    """``copies`` of a parsed sentence in one segment (one predicate each)."""
    seg = parse(CASES[0][0])
    n = len(seg.tokens)
    spec = " ".join(
        "/".join([t.form, t.lemma, t.upos, t.xpos, str(t.head + k * n if t.head else 0),
                  t.deprel]) for k in range(copies) for t in seg.tokens)
    return parse(spec)


def test_a_long_segment_is_tagged_in_bounded_batches_with_states_for_every_word(monkeypatch):
    seg = _long(50)  # 400 words, 50 predicates
    lab = C.ContextualSRL()
    states = C.word_states(lab.load().enc, [seg.words])[0]
    assert np.abs(states).sum(axis=(0, 2)).min() > 0  # no word past the encoder's reach
    shapes = []
    real = C.inputs

    def spy(*args, **kwargs):
        got = real(*args, **kwargs)
        shapes.append(got[0].shape)
        return got

    monkeypatch.setattr(C, "inputs", spy)
    (frames,) = lab.label([seg])
    assert len(frames) == 50 and shapes
    assert all(rows <= C.PREDICATE_ROWS and words <= C.WINDOW for rows, _, words, _ in shapes)
    for f in frames:
        assert all(0 <= a.start < a.end <= len(seg.tokens) for a in f.args)


@pytest.mark.parametrize(("words", "bad"), [("0", "'0'"), ("ten", "'ten'"), (",", "','"),
                                            ("10,-5", "'-5'")])
def test_the_benchmark_refuses_bad_lengths_before_any_work(words, bad):
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_srl_memory", "--words", words],
                       capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--words" in r.stderr and bad in r.stderr, r.stderr
