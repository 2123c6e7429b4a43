"""The emb layer's vectors are sentence-transformers' (the reference pinned in the EMB
signatures), bit for bit, though the encoder does not import it: transformers' model plus the
mean Pooling and Normalize written out in :meth:`mtstrata.layers.embedding.Encoder._run`."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.errors import ModelError
from mtstrata.layers import embedding as emb

WORDS = ["Seit", "der", "Wahl", ",", "the", "committee", "said", "on", "Tuesday", "that",
         "1,200", "workers", "would", "lose", "their", "jobs", "unless", "an", "agreement",
         "is", "reached", "before", "March", "."]


@pytest.fixture(scope="module")
def both():
    from sentence_transformers import SentenceTransformer

    enc = emb.encoder()
    ref = SentenceTransformer(str(emb.model_dir()), device="cpu", local_files_only=True)
    ref.eval()
    return enc, ref


def reference(enc, ref, pieces, width, rows):
    """What SentenceTransformer's modules give for the batch ``Encoder._run`` builds."""
    torch = enc.torch
    ids = np.full((rows, width), enc.tokenizer.pad_token_id, dtype=np.int64)
    mask = np.zeros((rows, width), dtype=np.int64)
    for b in range(rows):
        p = pieces[b] if b < len(pieces) else pieces[0]
        ids[b, :len(p)], mask[b, :len(p)] = p, 1
    feats = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask),
             "token_type_ids": torch.zeros_like(torch.from_numpy(ids))}
    with torch.inference_mode():
        o = ref.forward(feats)
    return o["token_embeddings"].float().numpy(), o["sentence_embedding"].float().numpy()


@pytest.mark.parametrize("width", [4, 8, 12, 16, 32, 64, 128, 256])
@pytest.mark.parametrize("rows", [1, 2, 5, emb.ROWS])
def test_vectors_equal_sentence_transformers(both, width, rows):
    enc, ref = both
    ids = enc.tokenizer(WORDS * 12, is_split_into_words=True)["input_ids"]
    rng = np.random.default_rng(width * 100 + rows)
    pieces = []
    for _ in range(rows):  # texts of several lengths up to the width: padding is exercised
        n = int(rng.integers(2, width + 1))
        k = int(rng.integers(1, len(ids) - width))
        pieces.append([ids[0], *ids[k:k + n - 2], ids[-1]])
    got = enc._run(pieces, width, rows)
    want = reference(enc, ref, pieces, width, rows)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_the_tokenizer_and_limits_are_sentence_transformers(both):
    enc, ref = both
    assert enc.max_len == ref.max_seq_length
    assert enc.dim == ref.get_embedding_dimension()
    toks = [WORDS, WORDS[:3], ["Ünïcödé", "naïve", "—", "x"]]
    assert (enc.tokenizer(toks, is_split_into_words=True)["input_ids"]
            == ref.tokenizer(toks, is_split_into_words=True)["input_ids"])


def test_a_model_pooled_another_way_is_refused(tmp_path):
    import shutil

    src = emb.model_dir()
    for name in ("modules.json", "sentence_bert_config.json"):
        shutil.copy(src / name, tmp_path / name)
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(
        '{"word_embedding_dimension": 384, "pooling_mode_cls_token": true, '
        '"pooling_mode_mean_tokens": false}', encoding="utf-8")
    with pytest.raises(ModelError, match="mean Pooling"):
        emb.sentence_layout(tmp_path)
    assert emb.sentence_layout(src) == (256, 384)
