"""A batch of fewer than ``ROWS`` texts, run as mtstrata runs it on this machine, gives the bits
of a full batch (the emb layer's vectors are defined by ``ROWS``-row batches; see
mtstrata/layers/embedding.py, "Deterministic vectors"). Checked over the widths the encoder
takes, with texts of real word pieces. Which batch shapes keep the bits depends on the CPU's
kernels: that is measured at load (the probe) and reported here, never asserted."""

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


def rows_used(enc, n: int, w: int) -> int:
    """The rows mtstrata runs a batch of ``n`` texts of width ``w`` with on this machine (as
    :meth:`Encoder.encode_batch` decides: fewer rows only where the load-time probe allowed)."""
    return emb.rows_for(n, w) if enc.fewer_rows else emb.ROWS


def cpu() -> str:
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@pytest.mark.parametrize("w", [*range(4, 65, 4), 96, 128, 200, 256])
def test_partial_batches_give_the_bits_of_a_full_batch(enc, w):
    # the fact about mtstrata: whatever the CPU's kernels do, a text's vectors in a partial
    # batch, run with the rows mtstrata chooses here, are those of a full ROWS-row batch
    texts = texts_of_width(enc, w, emb.ROWS)
    full = enc._run(texts, w, emb.ROWS)
    for n in sorted({1, 2, 3, 5, emb.ROWS - 1}):
        rows = rows_used(enc, n, w)
        got = enc._run(texts[:n], w, rows)
        assert same_bits(got, full, n), (w, n, rows, cpu())


def test_why_rows_for_has_a_floor(enc):
    # An observation about this CPU's kernels, not about mtstrata: on some machines batches of
    # one row, or of 2-3 rows of 4 pieces, change the last bits (the reason for rows_for's
    # floor); on others (seen: AVX-512 EPYC) no shape does. Reported, never asserted.
    differs = []
    for w in (4, 8, 12):
        texts = texts_of_width(enc, w, emb.ROWS)
        full = enc._run(texts, w, emb.ROWS)
        for n in (1, 2, 3):
            if not same_bits(enc._run(texts[:n], w, n), full, n):
                differs.append((w, n))
    if not differs:
        pytest.skip(f"on this CPU ({cpu()}) no batch of 1-3 rows at widths 4-12 changed a bit: "
                    "rows_for's floor is slack here (an observation, not a defect)")
    print(f"\n{cpu()}: batches (width, rows) that change bits: {differs}")


def test_rows_for():
    assert emb.rows_for(16, 40) == emb.ROWS
    assert emb.rows_for(1, 40) == 2
    assert emb.rows_for(3, 4) == emb.MIN_PIECES // 4
    assert emb.rows_for(5, 12) == 5
    assert emb.rows_for(1, 256) == 2


@pytest.mark.parametrize("probe_passed", [True, False])
def test_the_probe_decides_the_rows(enc, monkeypatch, probe_passed):
    # where the load-time probe finds that fewer rows keep the bits, partial batches run with
    # rows_for rows; where it does not (another CPU's kernels), with full ROWS-row batches
    seen = []
    real = enc._run
    monkeypatch.setattr(enc, "_run", lambda p, w, r: seen.append(r) or real(p, w, r))
    monkeypatch.setattr(enc, "fewer_rows", probe_passed)
    items = enc.prepare(["A short text .", "Another one ."])
    enc.encode_batch(items[:1])
    want = emb.rows_for(1, emb.width(len(items[0][1]))) if probe_passed else emb.ROWS
    assert seen == [want]
