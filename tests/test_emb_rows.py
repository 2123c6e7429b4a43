"""A batch of fewer than ``ROWS`` texts gives the bits of a full batch (the emb layer's
vectors are defined by ``ROWS``-row batches; see mtstrata/layers/embedding.py, "Deterministic
vectors"). Checked here over the widths the encoder takes, with texts of real word pieces."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.layers import embedding as emb

WORDS = ["Seit", "der", "Wahl", ",", "the", "committee", "said", "on", "Tuesday", "that",
         "1,200", "workers", "would", "lose", "their", "jobs", "unless", "an", "agreement",
         "is", "reached", "before", "March", "."]


@pytest.fixture(scope="module")
def enc():
    return emb.encoder()


def texts_of_width(enc, w: int, n: int) -> list[list[int]]:
    """``n`` different piece sequences of exactly ``w`` pieces ([CLS] ... [SEP])."""
    ids = enc.tokenizer(WORDS * 30, is_split_into_words=True)["input_ids"]
    body = ids[1:-1]
    return [[ids[0], *body[k:k + w - 2], ids[-1]] for k in range(n)]


def same_bits(a, b, rows: int) -> bool:
    return all(np.array_equal(a[i][:rows], b[i][:rows]) for i in range(2))


@pytest.mark.parametrize("w", [*range(4, 65, 4), 96, 128, 200, 256])
def test_fewer_rows_give_the_bits_of_a_full_batch(enc, w):
    texts = texts_of_width(enc, w, emb.ROWS)
    full = enc._run(texts, w, emb.ROWS)
    for n in sorted({1, 2, 3, 5, emb.ROWS - 1}):
        rows = emb.rows_for(n, w)
        got = enc._run(texts[:n], w, rows)
        assert same_bits(got, full, n), (w, n, rows)


def test_one_row_or_too_few_pieces_would_not(enc):
    # why rows_for has its floor: at the narrowest widths, batches of one row, or of 2-3 rows
    # of 4 pieces, change the last bits (if this ever stops failing, the floor is only slack)
    differs = 0
    for w in (4, 8, 12):
        texts = texts_of_width(enc, w, emb.ROWS)
        full = enc._run(texts, w, emb.ROWS)
        for n in (1, 2, 3):
            differs += not same_bits(enc._run(texts[:n], w, n), full, n)
    assert differs, "no batch shape changed a bit: the rows_for floor is untested here"


def test_rows_for():
    assert emb.rows_for(16, 40) == emb.ROWS
    assert emb.rows_for(1, 40) == 2
    assert emb.rows_for(3, 4) == emb.MIN_PIECES // 4
    assert emb.rows_for(5, 12) == 5
    assert emb.rows_for(1, 256) == 2


def test_the_probe_passes_here_and_its_failure_runs_full_batches(enc, monkeypatch):
    assert enc.fewer_rows  # on this machine fewer rows keep the bits (the tests above)
    seen = []
    real = enc._run
    monkeypatch.setattr(enc, "_run", lambda p, w, r: seen.append(r) or real(p, w, r))
    items = enc.prepare(["A short text .", "Another one ."])
    enc.encode_batch(items[:1])
    monkeypatch.setattr(enc, "fewer_rows", False)
    enc.encode_batch(items[:1])
    assert seen == [emb.rows_for(1, emb.width(len(items[0][1]))), emb.ROWS]
